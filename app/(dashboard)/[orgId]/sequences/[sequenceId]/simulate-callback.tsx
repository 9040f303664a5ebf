"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";

/**
 * Embedded voice simulator only: the contact calls back the number that last called them. The agent on duty takes it
 * (a new inbound call in the Calls list), or the page says what the number's fallback would have answered.
 */
export function SimulateCallback({ sequenceId }: { sequenceId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const simulate = useMutation(trpc.sequences.simulateCallback.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries() }));
  const result = simulate.data;
  return (
    <div className="flex flex-col gap-2">
      <p className="text-sm text-muted-foreground">
        The voice simulator plays the contact calling back the number that last called them, as a real callback would reach the agent.
      </p>
      <div>
        <Button onClick={() => simulate.mutate({ sequenceId })} disabled={simulate.isPending}>
          Simulate a callback from this contact
        </Button>
      </div>
      {simulate.isError && <Alert tone="error">{errorMessage(simulate.error)}</Alert>}
      {result?.outcome === "agent" && <Alert tone="success">The agent took the call from {result.from} to {result.to}: it appears in Calls as an inbound call.</Alert>}
      {result?.outcome === "rejected" && (
        <Alert tone="info">The call to {result.to} would be refused: the organization no longer owns that number (it was released).</Alert>
      )}
      {result?.outcome === "fallback" && (
        <Alert tone="info">
          No agent took it ({result.reason.replace(/-/g, " ")}): the caller would hear “{result.message}”{result.forwardTo ? ` and be forwarded to ${result.forwardTo}` : ""}.
        </Alert>
      )}
    </div>
  );
}
