"use client";

import { useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../../_components/org-context";
import { Badge } from "../../../../_components/ui/badge";
import { Checkbox } from "../../../../_components/ui/checkbox";
import { FieldSet } from "../../../../_components/ui/field";
import { formatPhoneNumber } from "../../../../_components/ui/format";
import { ErrorState, Loading } from "../../../../_components/ui/states";

type Props = {
  values: string[];
  onChange: (values: string[]) => void;
  /** The server's refusal of the whole pool (under it) and of one number (`itemErrors[i]` for `values[i]`, beside it). */
  error?: string;
  itemErrors?: ReadonlyArray<string | undefined>;
};

/**
 * The agent's phone-number pool, picked from the organization's own active numbers that can place calls
 * (docs/numbers.md): a number already in the pool that no longer qualifies (released, disputed) stays listed, checked
 * and flagged, so it can be taken out — the server refuses to save it.
 */
export function NumberPoolPicker({ values, onChange, error, itemErrors }: Props) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const list = useQuery(trpc.numbers.list.queryOptions({}));
  const hint = (
    <>
      The numbers the agent calls from: your organization&apos;s own numbers that can place calls (<Link href={path("/numbers")}>Numbers</Link>).
    </>
  );
  if (list.isPending) {
    return (
      <FieldSet legend="Phone-number pool" hint={hint}>
        <Loading label="Loading your numbers…" rows={2} />
      </FieldSet>
    );
  }
  if (list.isError) {
    return (
      <FieldSet legend="Phone-number pool" hint={hint}>
        <ErrorState error={list.error} retry={() => void list.refetch()} />
      </FieldSet>
    );
  }
  const callable = list.data.numbers.filter((number) => number.status === "active" && number.capabilities.voice);
  const callableSet = new Set(callable.map((number) => number.phoneNumber));
  const stale = values.filter((value) => !callableSet.has(value));
  const options = [...callable.map((number) => ({ phoneNumber: number.phoneNumber, number })), ...stale.map((phoneNumber) => ({ phoneNumber, number: null }))];
  const toggle = (phoneNumber: string, checked: boolean) => onChange(checked ? [...values, phoneNumber] : values.filter((value) => value !== phoneNumber));

  return (
    <FieldSet legend="Phone-number pool" hint={hint}>
      <div data-testid="number-pool" className="flex flex-col gap-1.5">
        {options.length === 0 && (
          <p className="text-sm">
            Your organization has no number that can place calls yet. <Link href={path("/numbers")}>Buy one or bring your own on the Numbers page</Link>, then
            pick it here.
          </p>
        )}
        {options.map(({ phoneNumber, number }) => {
          const index = values.indexOf(phoneNumber);
          const itemError = index >= 0 ? itemErrors?.[index] : undefined;
          const id = `pool-${phoneNumber.replace(/\W/g, "")}`;
          const describedBy = [itemError && `${id}-error`, error && "pool-error"].filter(Boolean).join(" ") || undefined;
          return (
            <div key={phoneNumber}>
              <div className="flex flex-wrap items-center gap-2">
                <Checkbox id={id} checked={index >= 0} onCheckedChange={(checked) => toggle(phoneNumber, checked)} aria-invalid={itemError || error ? true : undefined} aria-describedby={describedBy} />
                <label htmlFor={id} className="font-medium tabular-nums">
                  {formatPhoneNumber(phoneNumber)}
                </label>
                {number?.capabilities.sms && <Badge>SMS</Badge>}
                {number && number.health.state !== "healthy" && <Badge tone={number.health.state === "resting" ? "danger" : "warning"}>{number.health.state === "resting" ? "Resting" : "Under watch"}</Badge>}
                {!number && <Badge tone="danger">Not one of your active numbers</Badge>}
              </div>
              {itemError && (
                <p id={`${id}-error`} className="mt-1 text-sm font-medium text-danger">
                  {itemError}
                </p>
              )}
            </div>
          );
        })}
      </div>
      {error && (
        <p id="pool-error" className="mt-1 text-sm font-medium text-danger">
          {error}
        </p>
      )}
    </FieldSet>
  );
}
