"use client";

import type { TConsoleAgent } from "@/server/schemas/agent-config";
import { useCan } from "../../../../../_components/org-context";
import { TestCallPanel, TestCallsList } from "./test-call-panel";
import { PromptVersionsPanel, TestRunsPanel } from "./test-runs-panel";

/** The agent page's "Tests" tab (docs/agent-testing.md). */
export function AgentTestsTab({ agent }: { agent: TConsoleAgent }) {
  const can = useCan();
  return (
    <div className="flex flex-col gap-4">
      {can.admin && <TestCallPanel agent={agent} />}
      <TestRunsPanel agent={agent} />
      <PromptVersionsPanel agentId={agent.agentId} />
      <TestCallsList agentId={agent.agentId} />
    </div>
  );
}
