"use client";

import Link from "next/link";
import type { RouterOutputs } from "../router-types";
import { useOrgPath } from "../org-context";
import { ZonedTime } from "../ui/time";
import { ResultBadge } from "../status-badges";

export type CustomerMatch = RouterOutputs["customers"]["find"]["results"][number];

const MATCHED: Record<CustomerMatch["matchedOn"][number], string> = {
  id: "ID",
  phone: "phone number",
  name: "name",
  email: "email",
  variable: "custom field",
};

export function matchedOnText(match: CustomerMatch): string {
  const parts = match.matchedOn.map((field) =>
    field === "variable" && match.matchedVariable ? `${match.matchedVariable.name} “${match.matchedVariable.value}”` : MATCHED[field],
  );
  return parts.length ? `Matched on ${parts.join(", ")}` : "";
}

/** One found contact: who, which agent, the last result, the next call and the meeting, each a link to open. */
export function CustomerResult({ match, onNavigate }: { match: CustomerMatch; onNavigate?: () => void }) {
  const path = useOrgPath();
  const callHref = (callId: string) => path(`/calls/${encodeURIComponent(callId)}`);
  const zone = match.contact.timezone;
  return (
    <div className="flex min-w-0 flex-col gap-1" data-testid="customer-result">
      <div className="flex flex-wrap items-baseline gap-x-2">
        <Link href={path(`/sequences/${encodeURIComponent(match.sequenceId)}`)} className="font-semibold break-words" onClick={onNavigate}>
          {match.contact.name}
        </Link>
        <span className="text-sm tabular-nums">{match.contact.phoneNumber}</span>
        {match.contact.email && <span className="text-sm break-all text-muted-foreground">{match.contact.email}</span>}
      </div>
      <div className="text-sm text-muted-foreground">
        Agent {match.agent.name} · {matchedOnText(match)}
      </div>
      <dl className="grid grid-cols-1 gap-x-4 gap-y-1 text-sm sm:grid-cols-3">
        <div className="min-w-0">
          <dt className="text-muted-foreground">Last result</dt>
          <dd>
            {match.lastCall ? (
              <Link href={callHref(match.callId ?? match.lastCall.callId)} onClick={onNavigate} aria-label={`Open call: ${match.lastCall.resultType}`}>
                <ResultBadge resultType={match.lastCall.resultType} />
              </Link>
            ) : (
              "No call yet"
            )}
          </dd>
        </div>
        <div className="min-w-0">
          <dt className="text-muted-foreground">Next call</dt>
          <dd>{match.nextCall ? <ZonedTime iso={match.nextCall.scheduledAt} contactZone={zone} stacked /> : "None scheduled"}</dd>
        </div>
        <div className="min-w-0">
          <dt className="text-muted-foreground">Meeting</dt>
          <dd>
            {match.meeting ? (
              <Link href={callHref(match.meeting.callId)} onClick={onNavigate} className="inline-flex flex-col">
                <ZonedTime iso={match.meeting.startTime} contactZone={zone} stacked />
                {match.meeting.status === "cancelled" && <span>(cancelled)</span>}
              </Link>
            ) : (
              "None"
            )}
          </dd>
        </div>
      </dl>
      {match.callId && !match.lastCall && (
        <Link href={callHref(match.callId)} onClick={onNavigate} className="text-sm">
          Open the call
        </Link>
      )}
    </div>
  );
}
