"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useRef, useState, type FormEvent } from "react";
import { errorCode, errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../../_components/confirm-button";
import { useCan } from "../../../../_components/org-context";
import { ErrorState, Loading } from "../../../../_components/states";
import styles from "../../conversations/_components/console-ops.module.css";
import { fieldIssues } from "../../conversations/_components/field-issues";
import { ZonedTime } from "../../conversations/_components/zoned-time";

type FollowUp = { startTime: string; endTime: string; hostEmail: string; meetingLink: string };
type Stored = { bookingUid?: string; status?: "booked" | "cancelled"; cancelledAt?: string; provider?: string; mode?: string };
type AttendeeDraft = { email: string; name: string; timeZone: string; phoneNumber: string; language: string };

const MAX_ATTENDEES = 30;
const emptyAttendee = (): AttendeeDraft => ({ email: "", name: "", timeZone: "", phoneNumber: "", language: "" });
const isUrl = (value: string) => /^https?:\/\//i.test(value.trim());

const PROVIDER_STATUS_TEXT = { active: "Booked", cancelled: "Cancelled", completed: "Completed", "no-show": "No-show" } as const;

/**
 * The meeting booked during the call: details (in the viewer's and the contact's timezone), the attendee list read
 * live from the provider, adding attendees (1–30, the API's validation) and cancelling — through the same meetings
 * procedures as the REST API. After a cancel, the conversation's stored status is reconciled in the background; the
 * panel says so until it has happened, polling the provider-vs-stored state.
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
  onReconciled: () => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const hasBooking = Boolean(stored.bookingUid);
  const state = useQuery({
    ...trpc.meetings.state.queryOptions({ entityId: callId }),
    enabled: hasBooking,
    // Until the background reconciliation has caught up, look again every 2 s.
    refetchInterval: (query) => (query.state.data && !query.state.data.reconciled ? 2000 : false),
  });
  const attendees = useQuery({ ...trpc.meetings.listAttendees.queryOptions({ entityId: callId }), enabled: hasBooking });

  const reconciled = state.data?.reconciled;
  const wasPending = useRef(false);
  useEffect(() => {
    if (reconciled === false) wasPending.current = true;
    if (reconciled === true && wasPending.current) {
      wasPending.current = false;
      onReconciled();
    }
  }, [reconciled, onReconciled]);

  const [drafts, setDrafts] = useState<AttendeeDraft[]>([emptyAttendee()]);
  const [added, setAdded] = useState<number | null>(null);
  const addAttendees = useMutation(
    trpc.meetings.addAttendees.mutationOptions({
      onSuccess: (data, variables) => {
        queryClient.setQueryData(trpc.meetings.listAttendees.queryKey({ entityId: callId }), data);
        setAdded(variables.attendees.length);
        setDrafts([emptyAttendee()]);
      },
    }),
  );
  const [reason, setReason] = useState("");
  const [cancelSubsequent, setCancelSubsequent] = useState(false);
  const cancel = useMutation(
    trpc.meetings.cancel.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.meetings.state.queryKey({ entityId: callId }) }),
    }),
  );

  const issues = fieldIssues(addAttendees.error);
  const submitAttendees = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    addAttendees.mutate({
      entityId: callId,
      attendees: drafts.map((draft) => ({
        email: draft.email.trim(),
        ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
        ...(draft.timeZone.trim() ? { timeZone: draft.timeZone.trim() } : {}),
        ...(draft.phoneNumber.trim() ? { phoneNumber: draft.phoneNumber.trim() } : {}),
        ...(draft.language.trim() ? { language: draft.language.trim() } : {}),
      })),
    });
  };
  const update = (index: number, patch: Partial<AttendeeDraft>) => setDrafts((rows) => rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));

  const live = state.data?.provider;
  const startTime = live?.startTime ?? followUp?.startTime ?? null;
  const endTime = live?.endTime ?? followUp?.endTime ?? null;
  const host = live?.hostEmail ?? followUp?.hostEmail ?? null;
  const where = live?.meetingLink ?? followUp?.meetingLink ?? null;

  return (
    <section className="panel" aria-labelledby="meeting-heading" data-testid="meeting-panel">
      <h2 id="meeting-heading" style={{ marginTop: 0 }}>
        Meeting
      </h2>
      {!hasBooking ? (
        <p className="hint">A meeting was planned during this call, but no booking is recorded ({stored.provider ?? "no provider"}).</p>
      ) : state.isPending ? (
        <Loading label="Reading the meeting from the calendar provider…" rows={2} />
      ) : state.isError ? (
        <ErrorState error={state.error} retry={() => void state.refetch()} />
      ) : (
        <div aria-live="polite">
          <p style={{ margin: "0 0 8px" }}>
            <span
              className={state.data.provider.status === "cancelled" ? "badge badge-danger" : state.data.provider.status === "active" ? "badge badge-ok" : "badge badge-muted"}
              data-testid="meeting-status"
            >
              {PROVIDER_STATUS_TEXT[state.data.provider.status]}
            </span>{" "}
            <span className="hint">at the calendar provider (read live)</span>
          </p>
          {state.data.reconciled ? (
            <p className="hint" data-testid="reconciliation" data-reconciled="true">
              The conversation&apos;s metadata agrees: <code>crmSchedulingDetails.status</code> is <strong>{state.data.storedStatus ?? "booked"}</strong>
              {state.data.storedStatus === "cancelled" && stored.cancelledAt && (
                <>
                  {" "}
                  (cancelled <ZonedTime iso={stored.cancelledAt} compact />)
                </>
              )}
              .
            </p>
          ) : (
            <div className="alert alert-warn" role="status" data-testid="reconciliation" data-reconciled="false">
              Not reconciled yet: the provider says <strong>{state.data.provider.status}</strong>, the conversation&apos;s metadata still says{" "}
              <strong>{state.data.storedStatus ?? "booked"}</strong>. A background job brings it in line; this page updates when it has run.
            </div>
          )}
        </div>
      )}

      {(startTime || host || where) && (
        <dl className={styles.dl} style={{ marginTop: 12 }}>
          {startTime && (
            <>
              <dt>Starts</dt>
              <dd>
                <ZonedTime iso={startTime} contactZone={contactZone} />
              </dd>
            </>
          )}
          {endTime && (
            <>
              <dt>Ends</dt>
              <dd>
                <ZonedTime iso={endTime} contactZone={contactZone} />
              </dd>
            </>
          )}
          {host && (
            <>
              <dt>Host</dt>
              <dd>{host}</dd>
            </>
          )}
          {where && (
            <>
              <dt>{isUrl(where) ? "Link" : "Address"}</dt>
              <dd>
                {isUrl(where) ? (
                  <a href={where} target="_blank" rel="noreferrer noopener">
                    {where}
                  </a>
                ) : (
                  where
                )}
              </dd>
            </>
          )}
          {stored.bookingUid && (
            <>
              <dt>Booking</dt>
              <dd>
                <code>{stored.bookingUid}</code>
                {stored.mode && <span className="hint"> · {stored.mode} mode</span>}
              </dd>
            </>
          )}
        </dl>
      )}

      {hasBooking && (
        <>
          <div className="page-header" style={{ marginTop: 16, marginBottom: 8 }}>
            <h3 style={{ margin: 0 }}>Attendees</h3>
            <button type="button" className="btn btn-small" onClick={() => void attendees.refetch()} disabled={attendees.isFetching}>
              {attendees.isFetching ? "Reading…" : "Refresh"}
            </button>
          </div>
          {attendees.isPending ? (
            <Loading rows={2} label="Reading attendees…" />
          ) : attendees.isError ? (
            <ErrorState error={attendees.error} retry={() => void attendees.refetch()} />
          ) : (
            <div className="table-wrap">
              <table data-testid="attendees">
                <caption className="hint" style={{ captionSide: "bottom", textAlign: "left", paddingTop: 4 }}>
                  Read live from the calendar provider.
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Email</th>
                    <th scope="col">Name</th>
                    <th scope="col">Time zone</th>
                    <th scope="col">Phone</th>
                  </tr>
                </thead>
                <tbody>
                  {attendees.data.attendees.map((attendee) => (
                    <tr key={attendee.email}>
                      <td>{attendee.email}</td>
                      <td>{attendee.name ?? <span className="hint">—</span>}</td>
                      <td>{attendee.timeZone ?? <span className="hint">—</span>}</td>
                      <td>{attendee.phoneNumber ?? <span className="hint">—</span>}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )}

          {can.support && state.data?.canAddAttendees && (
            <form onSubmit={submitAttendees} style={{ marginTop: 16 }} aria-labelledby="add-attendees-heading" noValidate>
              <h3 id="add-attendees-heading">Add attendees</h3>
              {drafts.map((draft, index) => {
                const issue = (field: string) => issues[`attendees.${index}.${field}`];
                const fieldId = (field: string) => `attendee-${index}-${field}`;
                const input = (field: keyof AttendeeDraft, label: string, type = "text", placeholder?: string) => (
                  <div className="field">
                    <label htmlFor={fieldId(field)}>{label}</label>
                    <input
                      id={fieldId(field)}
                      type={type}
                      value={draft[field]}
                      placeholder={placeholder}
                      aria-invalid={issue(field) ? true : undefined}
                      aria-describedby={issue(field) ? `${fieldId(field)}-error` : undefined}
                      onChange={(e) => update(index, { [field]: e.target.value })}
                    />
                    {issue(field) && (
                      <span id={`${fieldId(field)}-error`} className={styles.fieldError}>
                        {issue(field)}
                      </span>
                    )}
                  </div>
                );
                return (
                  <fieldset key={index} className={styles.attendeeRow}>
                    <legend className="label-text">Attendee {index + 1}</legend>
                    <div className="row">
                      {input("email", "Email (required)", "email")}
                      {input("name", "Name")}
                      {input("timeZone", "Time zone", "text", "Europe/Berlin")}
                      {input("phoneNumber", "Phone (E.164)", "text", "+14155550171")}
                      {input("language", "Language", "text", "en")}
                    </div>
                    {drafts.length > 1 && (
                      <button type="button" className="btn btn-small" onClick={() => setDrafts((rows) => rows.filter((_, i) => i !== index))}>
                        Remove attendee {index + 1}
                      </button>
                    )}
                  </fieldset>
                );
              })}
              <div className="actions">
                <button type="button" className="btn btn-small" disabled={drafts.length >= MAX_ATTENDEES} onClick={() => setDrafts((rows) => [...rows, emptyAttendee()])}>
                  Another attendee
                </button>
                <span className="hint">
                  {drafts.length} of at most {MAX_ATTENDEES} per request
                </span>
                <button type="submit" className="btn btn-primary" disabled={addAttendees.isPending}>
                  {addAttendees.isPending ? "Adding…" : drafts.length > 1 ? `Add ${drafts.length} attendees` : "Add attendee"}
                </button>
              </div>
              <div aria-live="polite">
                {added !== null && (
                  <p className="alert alert-ok" role="status">
                    Added. The list above is the provider&apos;s, read back after the change.
                  </p>
                )}
                {addAttendees.isError && Object.keys(issues).length === 0 && (
                  <p className="alert alert-error" role="alert">
                    {errorMessage(addAttendees.error)}
                  </p>
                )}
                {addAttendees.isError && Object.keys(issues).length > 0 && (
                  <p className={styles.fieldError} role="alert">
                    Fix the highlighted fields: nothing was added.
                  </p>
                )}
              </div>
            </form>
          )}
          {can.support && state.data && !state.data.canAddAttendees && state.data.provider.status === "active" && (
            <p className="hint">The meeting has started: attendees can no longer be added.</p>
          )}

          {can.support && state.data?.provider.status === "active" && (
            <div style={{ marginTop: 16 }}>
              <h3>Cancel the meeting</h3>
              <div className="field">
                <label htmlFor="cancel-reason">Reason (sent to the provider and the attendees)</label>
                <textarea id="cancel-reason" value={reason} maxLength={1000} style={{ minHeight: 70 }} onChange={(e) => setReason(e.target.value)} />
              </div>
              <label className="checkbox" style={{ marginBottom: 12 }}>
                <input type="checkbox" checked={cancelSubsequent} onChange={(e) => setCancelSubsequent(e.target.checked)} /> Also cancel later occurrences (recurring
                bookings)
              </label>
              <ConfirmButton
                label="Cancel meeting"
                title="Cancel this meeting?"
                confirmLabel="Cancel meeting"
                disabled={cancel.isPending}
                onConfirm={() =>
                  cancel.mutate({ entityId: callId, ...(reason.trim() ? { cancellationReason: reason.trim() } : {}), ...(cancelSubsequent ? { cancelSubsequentBookings: true } : {}) })
                }
              >
                <p>The calendar provider cancels it and notifies the attendees. This cannot be undone here.</p>
              </ConfirmButton>
              {cancel.isError && (
                <p className="alert alert-error" role="alert">
                  {errorCode(cancel.error) === "PROVIDER_UNAVAILABLE" ? "The calendar provider is unavailable; nothing was changed. " : ""}
                  {errorMessage(cancel.error)}
                </p>
              )}
            </div>
          )}
          {cancel.isSuccess && (
            <p className="alert alert-ok" role="status" data-testid="cancel-confirmed">
              The provider confirmed the cancellation.
            </p>
          )}
        </>
      )}
    </section>
  );
}
