"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../../_components/org-context";
import { Alert } from "../../../../_components/ui/alert";
import { Badge } from "../../../../_components/ui/badge";
import { Section } from "../../../../_components/ui/card";
import { DescriptionList } from "../../../../_components/ui/description-list";
import { humanize } from "../../../../_components/ui/format";
import { IdDetails } from "../../../../_components/ui/id-details";
import { ErrorState, Loading } from "../../../../_components/ui/states";
import { LocalTime, ZonedTime } from "../../../../_components/ui/time";
import { AddAttendeesForm, AttendeeList } from "./meeting-attendees";
import { CancelMeetingForm } from "./meeting-cancel";

type FollowUp = { startTime: string; endTime: string; hostEmail: string; meetingLink: string };
type Stored = { bookingUid?: string; status?: "booked" | "cancelled"; cancelledAt?: string; provider?: string; mode?: string };

const isUrl = (value: string) => /^https?:\/\//i.test(value.trim());
const PROVIDER_STATUS = { active: { text: "Booked", tone: "success" }, cancelled: { text: "Cancelled", tone: "danger" }, completed: { text: "Completed", tone: "neutral" }, "no-show": { text: "No-show", tone: "neutral" } } as const;
const MODES: Record<string, string> = { link: "scheduling link", crm: "CRM handoff", concierge: "concierge" };

/**
 * The meeting booked during the call: details (in the viewer's and the contact's timezone), the attendees read live
 * from the provider, adding attendees and cancelling while it has not started — through the same meetings procedures
 * as the API. After a cancel the conversation's stored status is brought in line in the background; the panel says so
 * until it has happened, polling the provider-vs-stored state.
 */
export function MeetingPanel({
  callId,
  contactZone,
  followUp,
  stored,
  onReconciled,
}: {
  callId: string;
  contactZone: string;
  followUp: FollowUp | null;
  stored: Stored;
  /** Our records agree with the provider and say `storedStatus`, which `stored` does not show yet (after a cancel). */
  onReconciled: (storedStatus: "booked" | "cancelled") => void;
}) {
  const trpc = useTRPC();
  const can = useCan();
  const hasBooking = Boolean(stored.bookingUid);
  const [cancelled, setCancelled] = useState(false);
  const state = useQuery({
    ...trpc.meetings.state.queryOptions({ entityId: callId }),
    enabled: hasBooking,
    // Until the background reconciliation has caught up, look again every 2 s.
    refetchInterval: (query) => (query.state.data && !query.state.data.reconciled ? 2000 : false),
  });

  // Once our records agree with the provider, tell the page when its copy of the stored status is behind them (the
  // reconciliation ran while this panel polled, or before it first read the state).
  const reconciled = state.data?.reconciled;
  const storedStatus = state.data?.storedStatus ?? "booked";
  const shownStatus = stored.status ?? "booked";
  // Once per status (the page's handler may re-render it with a new function before its copy catches up).
  const reported = useRef<string | null>(null);
  useEffect(() => {
    if (reconciled !== true || storedStatus === shownStatus || reported.current === storedStatus) return;
    reported.current = storedStatus;
    onReconciled(storedStatus);
  }, [reconciled, storedStatus, shownStatus, onReconciled]);

  const live = state.data?.provider;
  const startTime = live?.startTime ?? followUp?.startTime ?? null;
  const endTime = live?.endTime ?? followUp?.endTime ?? null;
  const host = live?.hostEmail ?? followUp?.hostEmail ?? null;
  const where = live?.meetingLink ?? followUp?.meetingLink ?? null;
  // A meeting that has started (or ended) can no longer be cancelled from here.
  const [now] = useState(() => Date.now());
  const notStarted = !startTime || Date.parse(startTime) > now;
  const active = live?.status === "active";

  return (
    <Section title="Meeting" data-testid="meeting-panel">
      <div className="flex flex-col gap-4">
        {!hasBooking ? (
          <p className="text-muted-foreground">A meeting was planned during this call, but no booking is recorded.</p>
        ) : state.isPending ? (
          <Loading label="Reading the meeting from the calendar provider…" rows={2} />
        ) : state.isError ? (
          <ErrorState error={state.error} retry={() => void state.refetch()} />
        ) : (
          <div aria-live="polite" className="flex flex-col gap-2">
            <p className="flex flex-wrap items-center gap-2">
              <Badge tone={PROVIDER_STATUS[state.data.provider.status].tone} data-testid="meeting-status">
                {PROVIDER_STATUS[state.data.provider.status].text}
              </Badge>
              <span className="text-sm text-muted-foreground">at the calendar provider (read just now)</span>
            </p>
            {state.data.reconciled ? (
              <p className="text-sm text-muted-foreground" data-testid="reconciliation" data-reconciled="true">
                Our records agree: the meeting is <strong>{state.data.storedStatus ?? "booked"}</strong>
                {state.data.storedStatus === "cancelled" && stored.cancelledAt && (
                  <>
                    {" "}
                    (cancelled <LocalTime iso={stored.cancelledAt} />)
                  </>
                )}
                .
              </p>
            ) : (
              <Alert tone="warning" data-testid="reconciliation" data-reconciled="false">
                Not updated yet: the provider says <strong>{humanize(state.data.provider.status)}</strong>, our records still say{" "}
                <strong>{state.data.storedStatus ?? "booked"}</strong>. A background job brings them in line; this page updates when it has run.
              </Alert>
            )}
          </div>
        )}

        {(startTime || host || where) && (
          <DescriptionList
            items={[
              startTime && { label: "Starts", value: <ZonedTime iso={startTime} contactZone={contactZone} /> },
              endTime && { label: "Ends", value: <ZonedTime iso={endTime} contactZone={contactZone} /> },
              host && { label: "Host", value: host },
              where && {
                label: isUrl(where) ? "Link" : "Address",
                value: isUrl(where) ? (
                  <a href={where} target="_blank" rel="noreferrer noopener" className="break-all">
                    {where}
                  </a>
                ) : (
                  where
                ),
              },
              stored.mode && { label: "Booked through", value: MODES[stored.mode] ?? stored.mode },
            ]}
          />
        )}
        {stored.bookingUid && <IdDetails label="Booking ID" ids={[{ label: "Booking ID", value: stored.bookingUid }]} />}

        {hasBooking && (
          <>
            <AttendeeList callId={callId} />
            {can.support && state.data?.canAddAttendees && <AddAttendeesForm callId={callId} />}
            {can.support && state.data && !state.data.canAddAttendees && active && (
              <p className="text-muted-foreground">The meeting has started: attendees can no longer be added.</p>
            )}
            {can.support && active && notStarted && <CancelMeetingForm callId={callId} onCancelled={() => setCancelled(true)} />}
            {can.support && active && !notStarted && <p className="text-muted-foreground">The meeting has started, so it can no longer be cancelled.</p>}
            {cancelled && (
              <Alert tone="success" data-testid="cancel-confirmed">
                The provider confirmed the cancellation.
              </Alert>
            )}
          </>
        )}
      </div>
    </Section>
  );
}
