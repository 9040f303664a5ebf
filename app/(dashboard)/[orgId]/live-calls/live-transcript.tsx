"use client";

import { useQuery } from "@tanstack/react-query";
import { useEffect, useRef, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import type { RouterOutputs } from "../../../_components/router-types";
import { ErrorState } from "../../../_components/ui/states";
import { lastCursor, mergeTranscriptLines } from "./transcript-order";

type Line = RouterOutputs["calls"]["liveTranscript"]["lines"][number];

/** Polls the call's transcript lines stored after the last one fetched, every second, while the call is in progress. */
export function LiveTranscript({ callId, onEnded }: { callId: string; onEnded: () => void }) {
  const trpc = useTRPC();
  const [lines, setLines] = useState<Line[]>([]);
  const cursor = lastCursor(lines);
  const transcript = useQuery({
    ...trpc.calls.liveTranscript.queryOptions({ callId, after: cursor }),
    refetchInterval: (query) => (query.state.data && !query.state.data.live ? false : 1000),
  });
  const data = transcript.data;
  useEffect(() => {
    if (!data || data.lines.length === 0) return;
    setLines((shown) => mergeTranscriptLines(shown, data.lines));
  }, [data]);
  const ended = data ? !data.live : false;
  const reported = useRef(false);
  useEffect(() => {
    if (ended && !reported.current) {
      reported.current = true;
      onEnded();
    }
  }, [ended, onEnded]);

  if (transcript.isError && lines.length === 0) return <ErrorState error={transcript.error} retry={() => void transcript.refetch()} />;
  return (
    <div className="flex flex-col gap-2">
      {lines.length === 0 ? (
        <p className="text-muted-foreground">{ended ? "Nothing was said." : "Nothing said yet…"}</p>
      ) : (
        <ol className="flex flex-col gap-1.5" data-testid="live-transcript" aria-live="polite" aria-label="Transcript so far">
          {lines.map((line) => (
            <li key={line.cursor} className="break-words">
              <span className="font-semibold">{line.speaker === "agent" ? "Agent" : "Contact"}:</span> {line.text}
            </li>
          ))}
        </ol>
      )}
      {ended && (
        <p className="font-semibold" data-testid="call-ended">
          The call has ended.
        </p>
      )}
    </div>
  );
}
