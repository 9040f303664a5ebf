"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { Search } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useId, useRef, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../org-context";
import { Input } from "../ui/input";
import { CustomerResult } from "./customer-result";

const PREVIEW = 6;

/**
 * The header's "find a customer" box, on every page: results appear under it as support types (name, phone number in
 * any format, email, a custom-variable value or an ID, across every agent); Enter opens the full results page.
 */
export function CustomerSearch() {
  const trpc = useTRPC();
  const path = useOrgPath();
  const router = useRouter();
  const panelId = useId();
  const root = useRef<HTMLDivElement>(null);
  const [input, setInput] = useState("");
  const [query, setQuery] = useState("");
  const [open, setOpen] = useState(false);
  useEffect(() => {
    const timer = setTimeout(() => setQuery(input.trim()), 250);
    return () => clearTimeout(timer);
  }, [input]);
  useEffect(() => {
    if (!open) return;
    const onPointer = (event: PointerEvent) => {
      if (root.current && !root.current.contains(event.target as Node)) setOpen(false);
    };
    document.addEventListener("pointerdown", onPointer);
    return () => document.removeEventListener("pointerdown", onPointer);
  }, [open]);
  const results = useQuery({
    ...trpc.customers.find.queryOptions({ query, limit: PREVIEW + 1 }),
    enabled: query.length >= 2,
    placeholderData: keepPreviousData,
  });
  const close = () => {
    setOpen(false);
    setInput("");
  };
  const shown = open && query.length >= 2;
  const rows = results.data?.results ?? [];

  return (
    <div ref={root} className="relative min-w-0">
      <form
        role="search"
        aria-label="Find a customer"
        onSubmit={(event) => {
          event.preventDefault();
          const q = input.trim();
          if (q.length < 2) return;
          setOpen(false);
          router.push(path(`/customers?q=${encodeURIComponent(q)}`));
        }}
        className="relative"
      >
        <Search className="pointer-events-none absolute top-1/2 left-2.5 size-4 -translate-y-1/2 text-muted-foreground" aria-hidden="true" />
        <label htmlFor={`${panelId}-input`} className="sr-only">
          Find a customer
        </label>
        <Input
          id={`${panelId}-input`}
          type="search"
          className="pl-8"
          placeholder="Find a customer: name, phone, email, reference or ID"
          autoComplete="off"
          value={input}
          aria-controls={shown ? panelId : undefined}
          onChange={(event) => {
            setInput(event.target.value);
            setOpen(true);
          }}
          onFocus={() => setOpen(true)}
          onKeyDown={(event) => {
            if (event.key === "Escape") setOpen(false);
          }}
        />
      </form>
      {shown && (
        <div
          id={panelId}
          role="region"
          aria-label="Customers found"
          aria-live="polite"
          className="absolute top-full right-0 left-0 z-50 mt-1 max-h-[70dvh] overflow-y-auto rounded-lg border border-border bg-card p-2 text-foreground shadow-lg max-md:fixed max-md:top-14 max-md:right-2 max-md:left-2"
        >
          {results.isError ? (
            <p className="p-2 text-danger">Could not search. Try again.</p>
          ) : results.isPending ? (
            <p className="p-2 text-muted-foreground">Searching…</p>
          ) : rows.length === 0 ? (
            <p className="p-2 text-muted-foreground">Nobody matches “{query}”.</p>
          ) : (
            <ul className="flex flex-col divide-y divide-border">
              {rows.slice(0, PREVIEW).map((match) => (
                <li key={match.sequenceId} className="p-2">
                  <CustomerResult match={match} onNavigate={close} />
                </li>
              ))}
            </ul>
          )}
          {rows.length > 0 && (
            <Link href={path(`/customers?q=${encodeURIComponent(query)}`)} onClick={() => setOpen(false)} className="block p-2 text-sm font-medium">
              {rows.length > PREVIEW ? "See all results" : "Open as a page"}
            </Link>
          )}
        </div>
      )}
    </div>
  );
}
