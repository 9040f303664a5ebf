"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useMemo, useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable, Pager } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { EmptyState, ErrorState, Loading } from "../../../_components/ui/states";
import { ZonedTime } from "../../../_components/ui/time";
import { AgentPicker } from "./_components/agent-picker";
import { LifecycleBadge, ResultBadge } from "../../../_components/status-badges";

const CONVERSATIONS_PAGE_SIZE = 25;

const utcDay = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

type Row = RouterOutputs["conversations"]["sequenceSummaries"]["sequences"][number];
const col = columnsFor<Row>();

/**
 * Conversations of an agent in a date window (UTC days), paged as the API's conversation search pages, each sequence
 * shown as one row. The filters live in the URL so a page can be shared and reloaded.
 */
export function ConversationsView() {
  const trpc = useTRPC();
  const path = useOrgPath();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // The filters are state first (so quick successive changes never overwrite each other), mirrored into the URL.
  const [filters, setFilters] = useState(() => ({
    agentId: params.get("agent") ?? "",
    start: params.get("start") ?? utcDay(-29),
    end: params.get("end") ?? utcDay(0),
    page: Math.max(1, Number(params.get("page")) || 1),
  }));
  const { agentId, start, end, page } = filters;
  const [draft, setDraft] = useState({ start, end });
  const [jumpTo, setJumpTo] = useState("");
  const [jumpError, setJumpError] = useState<string | null>(null);

  useEffect(() => {
    const next = new URLSearchParams({ ...(agentId ? { agent: agentId } : {}), start, end, page: String(page) }).toString();
    if (next !== window.location.search.replace(/^\?/, "")) router.replace(`${pathname}?${next}`, { scroll: false });
  }, [agentId, start, end, page, pathname, router]);

  const setAgent = useCallback((id: string) => setFilters((f) => ({ ...f, agentId: id, page: 1 })), []);
  const setPage = (next: number) => setFilters((f) => ({ ...f, page: next }));

  const rangeError = draft.end < draft.start ? "The end day cannot be before the start day." : null;
  const search = useQuery({
    ...trpc.conversations.search.queryOptions({ agentId, start, end, limit: CONVERSATIONS_PAGE_SIZE, offset: (page - 1) * CONVERSATIONS_PAGE_SIZE }),
    enabled: Boolean(agentId),
    placeholderData: keepPreviousData,
  });
  const ids = search.data?.sequenceIds ?? [];
  const summaries = useQuery({
    ...trpc.conversations.sequenceSummaries.queryOptions({ sequenceIds: ids }),
    enabled: ids.length > 0,
    placeholderData: keepPreviousData,
  });

  const applyRange = (event: FormEvent) => {
    event.preventDefault();
    if (!rangeError) setFilters((f) => ({ ...f, start: draft.start, end: draft.end, page: 1 }));
  };
  const jump = (event: FormEvent) => {
    event.preventDefault();
    const id = jumpTo.trim();
    if (id.startsWith("call-sequence.")) router.push(path(`/sequences/${encodeURIComponent(id)}`));
    else if (id.startsWith("call.")) router.push(path(`/calls/${encodeURIComponent(id)}`));
    else setJumpError("That is not a sequence or call ID: copy it from a call's or sequence's details, or from your systems.");
  };

  const columns = useMemo(
    () => [
      col.accessor("name", {
        header: "Contact",
        cell: ({ row }) => (
          <>
            <Link href={path(`/sequences/${encodeURIComponent(row.original.sequenceId)}`)} className="font-medium break-words">
              {row.original.name}
            </Link>
            <div className="text-sm text-muted-foreground">{row.original.phoneNumber}</div>
          </>
        ),
      }),
      col.accessor("lifecycleStatus", { header: "Sequence", cell: ({ getValue }) => <LifecycleBadge status={getValue()} /> }),
      col.accessor((row) => row.lastCall?.resultType ?? "", {
        id: "lastCall",
        header: "Last call",
        cell: ({ row }) =>
          row.original.lastCall ? (
            <>
              <Link
                href={path(`/calls/${encodeURIComponent(row.original.lastCall.callId)}`)}
                aria-label={`Call ${row.original.lastCall.stepNumber} of ${row.original.name}: ${row.original.lastCall.resultType}`}
              >
                <ResultBadge resultType={row.original.lastCall.resultType} />
              </Link>
              <div className="text-sm text-muted-foreground max-sm:hidden">
                {row.original.lastCall.hasRecording ? "Recording" : "No audio"} · {row.original.lastCall.hasTranscript ? "transcript" : "no transcript"}
              </div>
            </>
          ) : (
            <span className="text-muted-foreground">No call yet</span>
          ),
      }),
      col.accessor("callCount", { header: "Calls", meta: { numeric: true, hideBelow: "md" } }),
      col.accessor("firstScheduledAt", {
        header: "First call",
        meta: { hideBelow: "md" },
        cell: ({ row }) => <ZonedTime iso={row.original.firstScheduledAt} contactZone={row.original.timezone} stacked />,
      }),
    ],
    [path],
  );

  const total = search.data?.total ?? 0;
  const from = total === 0 ? 0 : (page - 1) * CONVERSATIONS_PAGE_SIZE + 1;
  const to = Math.min(total, page * CONVERSATIONS_PAGE_SIZE);

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="Conversations" description="An agent's contacts with a call scheduled between two days (whole days in UTC, both included)." />
      <Section title="Search" role="search">
        <div className="flex flex-col gap-3">
          <AgentPicker id="conversation-agent" value={agentId} onChange={setAgent} />
          <form className="grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto]" onSubmit={applyRange}>
            <Field label="From (UTC day)" id="conversations-start">
              <Input type="date" value={draft.start} onChange={(e) => setDraft((d) => ({ ...d, start: e.target.value }))} />
            </Field>
            <Field label="To (UTC day)" id="conversations-end" error={rangeError ?? undefined}>
              <Input type="date" value={draft.end} onChange={(e) => setDraft((d) => ({ ...d, end: e.target.value }))} />
            </Field>
            <Button type="submit" variant="primary" className="sm:mt-6.5" disabled={Boolean(rangeError)}>
              Search
            </Button>
          </form>
          <details>
            <summary className="w-fit cursor-pointer">Open a sequence or call by its ID</summary>
            <form className="mt-2 grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,28rem)_auto]" onSubmit={jump}>
              <Field label="Sequence or call ID" id="jump-id" error={jumpError ?? undefined}>
                <Input
                  value={jumpTo}
                  onChange={(e) => {
                    setJumpTo(e.target.value);
                    setJumpError(null);
                  }}
                />
              </Field>
              <Button type="submit" className="sm:mt-6.5">
                Open
              </Button>
            </form>
          </details>
        </div>
      </Section>

      {!agentId ? (
        <Loading label="Loading agents…" />
      ) : search.isPending ? (
        <Loading rows={5} />
      ) : search.isError ? (
        <ErrorState error={search.error} retry={() => void search.refetch()} />
      ) : total === 0 ? (
        <EmptyState title="No conversations in this window">Try a wider date range or another agent.</EmptyState>
      ) : (
        <div className="flex flex-col gap-3">
          <p className="text-sm text-muted-foreground" aria-live="polite" data-testid="results-count">
            {from.toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()} conversations
          </p>
          <DataTable
            columns={columns}
            data={summaries.data?.sequences ?? []}
            getRowId={(row) => row.sequenceId}
            caption="Conversations"
            testId="conversations"
            isLoading={summaries.isPending}
            error={summaries.error}
            onRetry={() => void summaries.refetch()}
            busy={search.isFetching || summaries.isFetching}
          />
          <Pager page={page} pageCount={Math.max(page, Math.ceil(total / CONVERSATIONS_PAGE_SIZE))} summary={`${total.toLocaleString()} conversations`} onPageChange={setPage} />
        </div>
      )}
    </div>
  );
}
