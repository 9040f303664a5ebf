"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { CheckboxField } from "../../../_components/ui/checkbox";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { formatPhoneNumber } from "../../../_components/ui/format";
import { Input } from "../../../_components/ui/input";
import { toast } from "../../../_components/ui/toast";

type Search = { areaCode?: string; contains?: string; region?: string; sms: boolean };

/** Search the carrier's numbers by area code, digits or state, then buy one (admins; the page shows this to them only). */
export function BuyNumber() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [areaCode, setAreaCode] = useState("");
  const [contains, setContains] = useState("");
  const [region, setRegion] = useState("");
  const [sms, setSms] = useState(true);
  const [search, setSearch] = useState<Search | null>(null);
  const results = useQuery({
    ...trpc.numbers.searchAvailable.queryOptions({ areaCode: search?.areaCode, contains: search?.contains, region: search?.region, sms: search?.sms ?? false, limit: 10 }),
    enabled: search !== null,
    retry: false,
    staleTime: 0,
  });
  const buy = useMutation(
    trpc.numbers.acquire.mutationOptions({
      onSuccess: (data) => {
        toast({ title: `${formatPhoneNumber(data.number.phoneNumber)} is yours`, description: "Put it in an agent's pool in the agent editor." });
        void queryClient.invalidateQueries({ queryKey: trpc.numbers.pathKey() });
      },
    }),
  );
  const errors = formErrors(results.error, ["areaCode", "contains", "region"] as const);
  // A search saves nothing: a refused filter is marked beside its field, with no "nothing was saved" line.
  const searchMessage = Object.keys(errors.fields).length > 0 ? null : errors.message;
  const buyErrors = formErrors(buy.error, () => null);

  function onSearch(event: FormEvent) {
    event.preventDefault();
    buy.reset();
    setSearch({ areaCode: areaCode.trim() || undefined, contains: contains.trim() || undefined, region: region.trim().toUpperCase() || undefined, sms });
  }

  const offered = (results.data?.numbers ?? []).filter((offer) => !(buy.isSuccess && buy.data.number.phoneNumber === offer.phoneNumber));
  return (
    <Section title="Buy a number" description="Search the numbers the carrier offers now; nothing is reserved until you buy one. A bought number is billed each month until you release it.">
      <form onSubmit={onSearch} role="search" aria-label="Numbers to buy" className="flex flex-col gap-3">
        <div className="grid grid-cols-1 gap-3 sm:grid-cols-3">
          <Field label="Area code" id="buy-area-code" hint="e.g. 212" error={errors.fields.areaCode}>
            <Input inputMode="numeric" maxLength={3} value={areaCode} onChange={(e) => setAreaCode(e.target.value)} />
          </Field>
          <Field label="Contains" id="buy-contains" hint="Digits, * for any digit" error={errors.fields.contains}>
            <Input inputMode="numeric" maxLength={10} value={contains} onChange={(e) => setContains(e.target.value)} />
          </Field>
          <Field label="State or province" id="buy-region" hint="e.g. NY" error={errors.fields.region}>
            <Input maxLength={2} value={region} onChange={(e) => setRegion(e.target.value)} />
          </Field>
        </div>
        <CheckboxField label="Can also send SMS" checked={sms} onCheckedChange={setSms} />
        <div>
          <Button type="submit" disabled={results.isFetching}>
            {results.isFetching ? "Searching…" : "Search"}
          </Button>
        </div>
      </form>
      <div className="mt-3 flex flex-col gap-3 empty:hidden">
        {searchMessage && <Alert tone="error">{searchMessage}</Alert>}
        {buyErrors.message && <Alert tone="error">{buyErrors.message}</Alert>}
        {search && results.isSuccess && offered.length === 0 && <p className="text-sm text-muted-foreground">No numbers match: try another area code or fewer digits.</p>}
        {offered.length > 0 && (
          <ul className="flex flex-col divide-y divide-border rounded-lg border border-border" aria-label="Numbers offered" data-testid="available-numbers">
            {offered.map((offer) => (
              <li key={offer.phoneNumber} className="flex flex-wrap items-center gap-x-3 gap-y-1 px-3 py-2">
                <span className="font-semibold tabular-nums">{formatPhoneNumber(offer.phoneNumber)}</span>
                <span className="text-sm text-muted-foreground">{[offer.locality, offer.region].filter(Boolean).join(", ")}</span>
                <span className="flex gap-1">
                  {offer.capabilities.voice && <Badge>Voice</Badge>}
                  {offer.capabilities.sms && <Badge>SMS</Badge>}
                </span>
                <Button
                  size="sm"
                  variant="primary"
                  className="ml-auto"
                  disabled={buy.isPending}
                  aria-label={`Buy ${formatPhoneNumber(offer.phoneNumber)}`}
                  onClick={() => buy.mutate({ phoneNumber: offer.phoneNumber, source: "purchased" })}
                >
                  {buy.isPending && buy.variables?.phoneNumber === offer.phoneNumber ? "Buying…" : "Buy"}
                </Button>
              </li>
            ))}
          </ul>
        )}
      </div>
    </Section>
  );
}
