"use client";

import { keepPreviousData, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { Input, NativeSelect } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { ZonedTime } from "../../../_components/ui/time";
import { MeetingPanel } from "../calls/[callId]/meeting-panel";

type Meeting = RouterOutputs["meetings"]["list"]["meetings"][number];
type Show = "upcoming" | "past" | "cancelled" | "all";
type Filters = { agentId: string; show: Show; from: string; to: string; host: string };

const PAGE_SIZE = 25;
const SHOW: Record<Show, { label: string; input: { status?: "booked" | "cancelled"; when?: "upcoming" | "past" } }> = {
  upcoming: { label: "Upcoming", input: { status: "booked", when: "upcoming" } },
  past: { label: "Past", input: { when: "past" } },
  cancelled: { label: "Cancelled", input: { status: "cancelled" } },
  all: { label: "All", input: {} },
};
const EMPTY: Filters = { agentId: "", show: "upcoming", from: "", to: "", host: "" };

/** A local calendar day's start (the viewer's zone) as an ISO instant; `plusDays` 1 gives the end of the day. */
function dayStart(day: string, plusDays = 0): string | undefined {
  if (!day) return undefined;
  const date = new Date(`${day}T00:00:00`);
  if (Number.isNaN(date.getTime())) return undefined;
  date.setDate(date.getDate() + plusDays);
  return date.toISOString();
}

function MeetingStatus({ meeting }: { meeting: Meeting }) {
  if (meeting.status === "cancelled") return <Badge tone="danger">Cancelled</Badge>;
  if (meeting.started) return <Badge tone="neutral">Started</Badge>;
  return <Badge tone="success">Booked</Badge>;
}

const col = columnsFor<Meeting>();

/** The organization's meetings from our records; a row opens the live provider state, attendees and cancelling. */
export function MeetingsView() {
  const trpc = useTRPC();
  const path = useOrgPath();
  const [draft, setDraft] = useState<Filters>(EMPTY);
  const [filters, setFilters] = useState<Filters>(EMPTY);
  const [page, setPage] = useState(1);
  const agents = useQuery(trpc.agents.listForConsole.queryOptions({ page: 1, pageSize: 100 }));
  const rangeError = draft.from && draft.to && draft.from > draft.to ? "The last day is before the first." : null;
  const input = {
    ...SHOW[filters.show].input,
    agentId: filters.agentId || undefined,
    from: dayStart(filters.from),
    to: dayStart(filters.to, 1),
    host: filters.host.trim() || undefined,
    limit: PAGE_SIZE,
    offset: (page - 1) * PAGE_SIZE,
  };
  const meetings = useQuery({ ...trpc.meetings.list.queryOptions(input), placeholderData: keepPreviousData });
  const queryClient = useQueryClient();
  // A meeting cancelled from its open row keeps its row (and the panel confirming the cancel) although it no longer
  // matches "Upcoming": its status changes in place, and the list is read again when the filters change.
  const updateStatus = (callId: string, status: "booked" | "cancelled") => {
    queryClient.setQueryData(trpc.meetings.list.queryKey(input), (old) =>
      old ? { ...old, meetings: old.meetings.map((meeting) => (meeting.callId === callId ? { ...meeting, status } : meeting)) } : old,
    );
  };

  const apply = (event: FormEvent) => {
    event.preventDefault();
    if (rangeError) return;
    setFilters(draft);
    setPage(1);
  };

  const columns = useMemo(
    () => [
      col.accessor("startTime", {
        header: "Starts",
        cell: ({ row }) => (
          <>
            <ZonedTime iso={row.original.startTime} contactZone={row.original.contact.timezone} stacked />
            {/* Phones: the status column is hidden (390 px fit no more than three columns), so it shows here. */}
            <div className="mt-1 sm:hidden">
              <MeetingStatus meeting={row.original} />
            </div>
          </>
        ),
      }),
      col.accessor((row) => row.contact.name, {
        id: "contact",
        header: "Contact",
        cell: ({ row }) => (
          <>
            <Link href={path(`/sequences/${encodeURIComponent(row.original.sequenceId)}`)} className="font-medium break-words">
              {row.original.contact.name}
            </Link>
            <div className="hidden text-sm text-muted-foreground sm:block">{row.original.contact.phoneNumber}</div>
          </>
        ),
      }),
      col.accessor((row) => row.agent.name, { id: "agent", header: "Agent", meta: { hideBelow: "md" } }),
      col.accessor("hostEmail", { header: "Host", meta: { hideBelow: "lg" }, cell: ({ getValue }) => <span className="break-all">{getValue()}</span> }),
      col.accessor("status", { header: "Status", meta: { hideBelow: "sm" }, cell: ({ row }) => <MeetingStatus meeting={row.original} /> }),
    ],
    [path],
  );

  const total = meetings.data?.total ?? 0;
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Meetings"
        description="Meetings booked during your agents' calls, from our records. Open one to see it live at the calendar provider, add attendees or cancel it."
      />
      <Section title="Filter">
        <form className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2 lg:grid-cols-3" onSubmit={apply} aria-label="Filter meetings">
          <Field label="Show" id="meetings-show">
            <NativeSelect value={draft.show} onChange={(e) => setDraft((d) => ({ ...d, show: e.target.value as Show }))}>
              {(Object.keys(SHOW) as Show[]).map((key) => (
                <option key={key} value={key}>
                  {SHOW[key].label}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field label="Agent" id="meetings-agent" error={agents.isError ? "Could not load agents." : undefined}>
            <NativeSelect value={draft.agentId} onChange={(e) => setDraft((d) => ({ ...d, agentId: e.target.value }))}>
              <option value="">All agents</option>
              {(agents.data?.agents ?? []).map((agent) => (
                <option key={agent.agentId} value={agent.agentId}>
                  {agent.name}
                  {agent.status !== "ACTIVE" ? ` (${agent.status.toLowerCase()})` : ""}
                </option>
              ))}
            </NativeSelect>
          </Field>
          <Field label="Host email" id="meetings-host">
            <Input value={draft.host} maxLength={254} placeholder="Any host" onChange={(e) => setDraft((d) => ({ ...d, host: e.target.value }))} />
          </Field>
          <Field label="From (day)" id="meetings-from">
            <Input type="date" value={draft.from} onChange={(e) => setDraft((d) => ({ ...d, from: e.target.value }))} />
          </Field>
          <Field label="To (day)" id="meetings-to" error={rangeError ?? undefined}>
            <Input type="date" value={draft.to} onChange={(e) => setDraft((d) => ({ ...d, to: e.target.value }))} />
          </Field>
          <div className="flex gap-2 sm:mt-6.5">
            <Button type="submit" variant="primary" disabled={Boolean(rangeError)}>
              Apply
            </Button>
            <Button
              type="button"
              onClick={() => {
                setDraft(EMPTY);
                setFilters(EMPTY);
                setPage(1);
              }}
            >
              Reset
            </Button>
          </div>
        </form>
      </Section>
      <p className="text-sm text-muted-foreground" aria-live="polite" data-testid="meetings-count">
        {meetings.data ? `${total.toLocaleString()} ${total === 1 ? "meeting" : "meetings"}` : ""}
      </p>
      <DataTable
        columns={columns}
        data={meetings.data?.meetings ?? []}
        getRowId={(row) => row.callId}
        caption="Meetings"
        testId="meetings"
        rowTestId={(row) => `meeting-${row.callId}`}
        isLoading={meetings.isPending}
        error={meetings.error}
        onRetry={() => void meetings.refetch()}
        busy={meetings.isFetching}
        empty={{ title: "No meetings match", description: "Try “All”, another agent or a wider date range." }}
        serverPaging={
          total > PAGE_SIZE
            ? { page, pageCount: Math.ceil(total / PAGE_SIZE), totalItems: total, itemLabel: "meetings", onPageChange: setPage }
            : undefined
        }
        expandable={{
          label: (row, open) => `${open ? "Hide" : "Open"} the meeting with ${row.contact.name}`,
          openLabel: "Open",
          render: (row) => (
            <div className="flex flex-col gap-3">
              <MeetingPanel
                callId={row.callId}
                contactZone={row.contact.timezone}
                followUp={{ startTime: row.startTime, endTime: row.endTime, hostEmail: row.hostEmail, meetingLink: row.meetingLink }}
                stored={{ bookingUid: row.bookingUid, status: row.status, cancelledAt: row.cancelledAt ?? undefined, mode: row.mode ?? undefined }}
                onReconciled={(status) => updateStatus(row.callId, status)}
              />
              <Link href={path(`/calls/${encodeURIComponent(row.callId)}`)} className="text-sm">
                Open the call where it was booked
              </Link>
            </div>
          ),
        }}
      />
    </div>
  );
}
