"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { usePathname, useRouter, useSearchParams } from "next/navigation";
import { useCallback, useEffect, useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../_components/org-context";
import { EmptyState, ErrorState, Loading, PageHeader } from "../../../_components/states";
import { AgentPicker } from "./_components/agent-picker";
import { LifecycleBadge, ResultBadge } from "./_components/status-badges";
import { ZonedTime } from "./_components/zoned-time";

const CONVERSATIONS_PAGE_SIZE = 25;

const utcDay = (offsetDays = 0) => new Date(Date.now() + offsetDays * 86_400_000).toISOString().slice(0, 10);

/**
 * Conversations of an agent in a UTC date window, paged like GET /conversations/search (limit/offset over the same
 * ordering), each sequence ID hydrated into one row. The filters live in the URL so a page can be shared and reloaded.
 */
export function ConversationsView() {
  const trpc = useTRPC();
  const path = useOrgPath();
  const router = useRouter();
  const pathname = usePathname();
  const params = useSearchParams();
  // The filters are state first (so quick successive changes never overwrite each other), mirrored into the URL so a
  // page can be shared and reloaded.
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
    else setJumpError("Paste a sequence ID (call-sequence.…) or a call ID (call.…).");
  };

  const total = search.data?.total ?? 0;
  const from = total === 0 ? 0 : (page - 1) * CONVERSATIONS_PAGE_SIZE + 1;
  const to = Math.min(total, page * CONVERSATIONS_PAGE_SIZE);

  return (
    <>
      <PageHeader title="Conversations" description="Sequences of an agent with a call scheduled in the window (UTC days, both inclusive), as GET /conversations/search finds them." />
      <section className="panel" aria-label="Search conversations" role="search">
        <div className="row">
          <AgentPicker id="conversation-agent" value={agentId} onChange={setAgent} />
        </div>
        <form className="row" onSubmit={applyRange}>
          <div className="field">
            <label htmlFor="conversations-start">From (UTC day)</label>
            <input id="conversations-start" type="date" value={draft.start} onChange={(e) => setDraft((d) => ({ ...d, start: e.target.value }))} />
          </div>
          <div className="field">
            <label htmlFor="conversations-end">To (UTC day)</label>
            <input
              id="conversations-end"
              type="date"
              value={draft.end}
              aria-invalid={rangeError ? true : undefined}
              aria-describedby={rangeError ? "range-error" : undefined}
              onChange={(e) => setDraft((d) => ({ ...d, end: e.target.value }))}
            />
          </div>
          <div className="field" style={{ flex: "0 0 auto" }}>
            <button type="submit" className="btn btn-primary" disabled={Boolean(rangeError)}>
              Search
            </button>
          </div>
        </form>
        {rangeError && (
          <p id="range-error" className="hint" role="alert" style={{ color: "var(--danger)" }}>
            {rangeError}
          </p>
        )}
        <details>
          <summary>Open a sequence or call by ID</summary>
          <form className="row" onSubmit={jump} style={{ marginTop: 8 }}>
            <div className="field">
              <label htmlFor="jump-id">Sequence or call ID</label>
              <input
                id="jump-id"
                type="text"
                value={jumpTo}
                placeholder="call-sequence.… or call.…"
                onChange={(e) => {
                  setJumpTo(e.target.value);
                  setJumpError(null);
                }}
              />
              {jumpError && (
                <span className="hint" role="alert" style={{ color: "var(--danger)" }}>
                  {jumpError}
                </span>
              )}
            </div>
            <div className="field" style={{ flex: "0 0 auto" }}>
              <button type="submit" className="btn">
                Open
              </button>
            </div>
          </form>
        </details>
      </section>

      {!agentId ? (
        <Loading label="Loading agents…" />
      ) : search.isPending ? (
        <Loading rows={5} />
      ) : search.isError ? (
        <ErrorState error={search.error} retry={() => void search.refetch()} />
      ) : total === 0 ? (
        <EmptyState title="No conversations in this window">
          <p>Try a wider date range or another agent.</p>
        </EmptyState>
      ) : summaries.isError ? (
        <ErrorState error={summaries.error} retry={() => void summaries.refetch()} />
      ) : (
        <>
          <p className="hint" aria-live="polite" data-testid="results-count">
            {from.toLocaleString()}–{to.toLocaleString()} of {total.toLocaleString()} conversations
          </p>
          {summaries.isPending ? (
            <Loading rows={5} />
          ) : (
            <div className="table-wrap" aria-busy={search.isFetching || summaries.isFetching}>
              <table data-testid="conversations">
                <caption className="visually-hidden">Conversations</caption>
                <thead>
                  <tr>
                    <th scope="col">Contact</th>
                    <th scope="col">Sequence</th>
                    <th scope="col">Last call</th>
                    <th scope="col" className="num">
                      Calls
                    </th>
                    <th scope="col">First call</th>
                  </tr>
                </thead>
                <tbody>
                  {summaries.data.sequences.map((row) => (
                    <tr key={row.sequenceId}>
                      <td>
                        <Link href={path(`/sequences/${encodeURIComponent(row.sequenceId)}`)}>{row.name}</Link>
                        <div className="hint">{row.phoneNumber}</div>
                      </td>
                      <td>
                        <LifecycleBadge status={row.lifecycleStatus} />
                      </td>
                      <td>
                        {row.lastCall ? (
                          <>
                            <Link href={path(`/calls/${encodeURIComponent(row.lastCall.callId)}`)} aria-label={`Call ${row.lastCall.stepNumber} of ${row.name}: ${row.lastCall.resultType}`}>
                              <ResultBadge resultType={row.lastCall.resultType} />
                            </Link>
                            <div className="hint">
                              {row.lastCall.hasRecording ? "recording" : "no audio"} · {row.lastCall.hasTranscript ? "transcript" : "no transcript"}
                            </div>
                          </>
                        ) : (
                          <span className="hint">no call yet</span>
                        )}
                      </td>
                      <td className="num">{row.callCount}</td>
                      <td>
                        <ZonedTime iso={row.firstScheduledAt} contactZone={row.timezone} compact />
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}
          <nav className="actions" aria-label="Pages" style={{ marginTop: 12 }}>
            <button type="button" className="btn btn-small" disabled={page <= 1} onClick={() => setPage(page - 1)}>
              Previous
            </button>
            <span className="hint">Page {page}</span>
            <button type="button" className="btn btn-small" disabled={!search.data.hasMore} onClick={() => setPage(page + 1)}>
              Next
            </button>
          </nav>
        </>
      )}
    </>
  );
}
