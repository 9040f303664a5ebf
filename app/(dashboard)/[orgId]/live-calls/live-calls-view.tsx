"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { PageHeader } from "../../../_components/ui/page-header";
import { EmptyState, ErrorState, Loading } from "../../../_components/ui/states";
import { Duration, ZonedTime } from "../../../_components/ui/time";
import { ListenButton } from "./listen-button";
import { LiveTranscript } from "./live-transcript";

type LiveCall = RouterOutputs["calls"]["listLive"]["calls"][number];

/** With more calls than this in progress, each transcript is followed on request (each one polls every second). */
const FOLLOW_AT_ONCE = 3;

/** Seconds so far, counted on in the browser between two polls (from the server's figure each time it changes). */
function useTicking(seconds: number) {
  const [ticks, setTicks] = useState(0);
  useEffect(() => {
    setTicks(0);
    const timer = setInterval(() => setTicks((n) => n + 1), 1000);
    return () => clearInterval(timer);
  }, [seconds]);
  return seconds + ticks;
}

function LiveCallCard({ call, follow, onChanged }: { call: LiveCall; follow: boolean; onChanged: () => void }) {
  const trpc = useTRPC();
  const can = useCan();
  const path = useOrgPath();
  const seconds = useTicking(call.secondsSoFar);
  const [ended, setEnded] = useState(false);
  const [following, setFollowing] = useState(follow);
  const hangUp = useMutation(trpc.calls.hangUp.mutationOptions());
  return (
    <li className="flex min-w-0 flex-col gap-3 rounded-lg border border-border bg-card p-4" data-testid={`live-call-${call.callId}`}>
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <h2 className="text-lg break-words">
            <Link href={path(`/sequences/${encodeURIComponent(call.sequenceId)}`)}>{call.contact.name}</Link>
          </h2>
          <p className="text-sm text-muted-foreground">
            {call.contact.phoneNumber} · Agent {call.agent.name}
          </p>
        </div>
        <div className="flex flex-wrap items-center gap-2">
          {ended ? (
            <Badge tone="neutral">Ended</Badge>
          ) : call.state === "answered" ? (
            <Badge tone="success" data-testid="live-state">
              Answered · <Duration seconds={seconds} />
            </Badge>
          ) : (
            <Badge tone="warning" data-testid="live-state">
              Ringing · <Duration seconds={seconds} />
            </Badge>
          )}
          {can.admin && !ended && (
            <ConfirmButton
              label={hangUp.isPending ? "Hanging up…" : "Hang up"}
              title="Hang up this call?"
              confirmLabel="Hang up"
              disabled={hangUp.isPending || hangUp.isSuccess}
              onConfirm={() => hangUp.mutate({ callId: call.callId })}
            >
              The call with {call.contact.name} ends now, and is analysed like any call with what was said so far.
            </ConfirmButton>
          )}
        </div>
      </div>
      {call.dialedAt && (
        <p className="text-sm text-muted-foreground">
          Dialed <ZonedTime iso={call.dialedAt} contactZone={call.contact.timezone} />
        </p>
      )}
      {can.support && !ended && <ListenButton callId={call.callId} contactName={call.contact.name} />}
      {hangUp.isError && <Alert tone="error">{errorMessage(hangUp.error)}</Alert>}
      {following ? (
        <LiveTranscript
          callId={call.callId}
          onEnded={() => {
            setEnded(true);
            onChanged();
          }}
        />
      ) : (
        <div>
          <Button size="sm" onClick={() => setFollowing(true)}>
            Follow the transcript
          </Button>
        </div>
      )}
      {ended && <Link href={path(`/calls/${encodeURIComponent(call.callId)}`)}>Open the call (its result comes after the analysis)</Link>}
    </li>
  );
}

/** Calls in progress across the organization, each with its transcript as it is spoken; admins can hang up. */
export function LiveCallsView() {
  const trpc = useTRPC();
  const live = useQuery({ ...trpc.calls.listLive.queryOptions(), refetchInterval: 2000 });
  // A call stays on the page once shown, until the person leaves: its end is shown, not hidden.
  const [seen, setSeen] = useState<LiveCall[]>([]);
  useEffect(() => {
    if (!live.data) return;
    setSeen((shown) => {
      const byId = new Map(shown.map((call) => [call.callId, call]));
      for (const call of live.data.calls) byId.set(call.callId, call);
      return [...byId.values()];
    });
  }, [live.data]);

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="Live calls" description="Calls in progress right now, with what is being said. The list updates every 2 seconds." />
      {live.isPending ? (
        <Loading rows={3} />
      ) : live.isError ? (
        <ErrorState error={live.error} retry={() => void live.refetch()} />
      ) : seen.length === 0 ? (
        <EmptyState title="No calls in progress">Calls appear here as soon as they are dialed.</EmptyState>
      ) : (
        <ul className="flex flex-col gap-3" data-testid="live-calls">
          {seen.map((call) => (
            <LiveCallCard key={call.callId} call={call} follow={seen.length <= FOLLOW_AT_ONCE} onChanged={() => void live.refetch()} />
          ))}
        </ul>
      )}
    </div>
  );
}
