"use client";

import { useQuery } from "@tanstack/react-query";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../_components/ui/alert";
import { LocalTime } from "../../../../_components/ui/time";

/** When every number of the agent's pool rests (docs/numbers.md "Number health"): its calls wait, and until when. */
export function PoolRestNotice({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const rest = useQuery(trpc.agents.poolRest.queryOptions({ agentId }));
  if (!rest.data?.allResting || !rest.data.nextBackAt) return null;
  return (
    <Alert tone="warning" data-testid="pool-rest">
      Calls are waiting: every number of this agent is resting, because people stopped answering it compared with your other numbers
      calling the same places at the same hours. Calls resume when the first number is back, under watch, at <LocalTime iso={rest.data.nextBackAt} />.
      {rest.data.resting[0]?.reason && <> ({rest.data.resting[0].reason}.)</>}
    </Alert>
  );
}
