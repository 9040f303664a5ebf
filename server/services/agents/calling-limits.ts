import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { TAgentCallingLimitsView, TUpdateCallingLimitsRequest } from "@/server/routers/agents/calling-limits.schema";
import type { TAgentCallingLimits } from "@/server/schemas/calling-limits";

/** The columns the limits are read from (also selected by GET /agents). */
export const callingLimitColumns = {
  maxConcurrentCalls: agents.maxConcurrentCalls,
  dailyCreditCap: agents.dailyCreditCap,
  autoPauseEnabled: agents.autoPauseEnabled,
  autoPauseWindowCalls: agents.autoPauseWindowCalls,
  autoPauseFailurePercent: agents.autoPauseFailurePercent,
};

type CallingLimitRow = {
  maxConcurrentCalls: number | null;
  dailyCreditCap: number | null;
  autoPauseEnabled: boolean;
  autoPauseWindowCalls: number;
  autoPauseFailurePercent: number;
};

export function toCallingLimits(row: CallingLimitRow): TAgentCallingLimits {
  return {
    maxConcurrentCalls: row.maxConcurrentCalls,
    dailyCreditCap: row.dailyCreditCap,
    autoPause: { enabled: row.autoPauseEnabled, windowCalls: row.autoPauseWindowCalls, failurePercent: row.autoPauseFailurePercent },
  };
}

const viewColumns = { ...callingLimitColumns, agentId: agents.id, status: agents.status, pauseReason: agents.pauseReason };

export type AgentCallingLimitsParams = { organizationId: string; agentId: string };

/** 404 AGENT_NOT_FOUND unless the agent belongs to the (verified) organization. */
export async function getAgentCallingLimits(db: DbOrTx, params: AgentCallingLimitsParams): Promise<TAgentCallingLimitsView> {
  const [row] = await db
    .select(viewColumns)
    .from(agents)
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)));
  if (!row) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
  return { agentId: row.agentId, status: row.status, pauseReason: row.pauseReason, ...toCallingLimits(row) };
}

/** Sets the given limits (absent fields keep their value; null removes a cap). 404 AGENT_NOT_FOUND for another organization's agent. */
export async function updateAgentCallingLimits(
  db: DbOrTx,
  params: AgentCallingLimitsParams & { changes: Omit<TUpdateCallingLimitsRequest, "agentId">; now: Date },
): Promise<TAgentCallingLimitsView> {
  const { changes } = params;
  const set = Object.fromEntries(
    Object.entries({
      maxConcurrentCalls: changes.maxConcurrentCalls,
      dailyCreditCap: changes.dailyCreditCap,
      autoPauseEnabled: changes.autoPause?.enabled,
      autoPauseWindowCalls: changes.autoPause?.windowCalls,
      autoPauseFailurePercent: changes.autoPause?.failurePercent,
    }).filter(([, value]) => value !== undefined),
  );
  if (Object.keys(set).length === 0) return getAgentCallingLimits(db, params);
  const [row] = await db
    .update(agents)
    .set({ ...set, updatedAt: params.now })
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)))
    .returning(viewColumns);
  if (!row) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
  return { agentId: row.agentId, status: row.status, pauseReason: row.pauseReason, ...toCallingLimits(row) };
}
