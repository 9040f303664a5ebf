"use client";

import { useQuery } from "@tanstack/react-query";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { CustomerResult } from "../../../_components/customers/customer-result";
import { Button } from "../../../_components/ui/button";
import { Field } from "../../../_components/ui/field";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { EmptyState, ErrorState, Loading } from "../../../_components/ui/states";

const LIMIT = 50;

/** Every contact matching the header search, across agents (the query lives in the URL: `?q=`). */
export function CustomersView() {
  const trpc = useTRPC();
  const router = useRouter();
  const pathname = usePathname();
  const query = (useSearchParams().get("q") ?? "").trim();
  const [input, setInput] = useState(query);
  const results = useQuery({ ...trpc.customers.find.queryOptions({ query, limit: LIMIT }), enabled: query.length >= 2 });
  const rows = results.data?.results ?? [];

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Find a customer"
        description="Contacts of every agent, by name, phone number in any format, email, any custom field (such as a CRM reference) or a sequence or call ID."
      />
      <form
        className="flex flex-wrap items-end gap-2"
        onSubmit={(event) => {
          event.preventDefault();
          router.replace(`${pathname}?q=${encodeURIComponent(input.trim())}`);
        }}
      >
        <Field label="Name, phone, email, reference or ID" className="min-w-0 flex-1 basis-64">
          <Input type="search" value={input} onChange={(event) => setInput(event.target.value)} minLength={2} maxLength={200} />
        </Field>
        <Button type="submit" variant="primary">
          Search
        </Button>
      </form>
      {query.length < 2 ? (
        <EmptyState title="Type at least two characters" />
      ) : results.isPending ? (
        <Loading rows={4} />
      ) : results.isError ? (
        <ErrorState error={results.error} retry={() => void results.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title={`Nobody matches “${query}”`}>Try the phone number, part of the name or the email.</EmptyState>
      ) : (
        <>
          <p className="text-muted-foreground" data-testid="customers-count">
            {rows.length === LIMIT ? `The ${LIMIT} most recent matches: narrow the search to see others.` : `${rows.length} ${rows.length === 1 ? "match" : "matches"}, most recent first.`}
          </p>
          <ul className="flex flex-col gap-3">
            {rows.map((match) => (
              <li key={match.sequenceId} className="rounded-lg border border-border bg-card p-4">
                <CustomerResult match={match} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}
