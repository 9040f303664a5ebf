import { and, asc, eq, isNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, extractedVariableDefinitions, inputVariableDefinitions, outcomeDefinitions } from "@/db/schema";
import { AppError } from "@/server/errors";

export type Agent = typeof agents.$inferSelect;
export type AgentInOrganizationParams = { organizationId: string; agentId: string };

/** The agent, scoped to the organization; null for an unknown agent and for one of another organization alike. */
export async function findAgent(db: DbOrTx, params: AgentInOrganizationParams): Promise<Agent | null> {
  const [agent] = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)))
    .limit(1);
  return agent ?? null;
}

/**
 * The agent, scoped to the organization. An agent of another organization is reported exactly like an unknown one
 * (404 AGENT_NOT_FOUND), so its existence never leaks.
 */
export async function getAgentOrThrow(db: DbOrTx, params: AgentInOrganizationParams): Promise<Agent> {
  const agent = await findAgent(db, params);
  if (!agent) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
  return agent;
}

/** Cheap existence check (the ID only) for read endpoints and the HEAD connectivity checks; AGENT_NOT_FOUND otherwise. */
export async function assertAgentInOrganization(db: DbOrTx, params: AgentInOrganizationParams): Promise<void> {
  const [row] = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)))
    .limit(1);
  if (!row) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
}

/*
 * An agent's definitions, in the order the console arranged them. They are scoped by the agent alone: callers pass
 * an agent they have already found in the caller's organization (getAgentOrThrow / assertAgentInOrganization).
 */

/** The live (not soft-deleted) input variables. */
export function findInputVariableDefinitions(db: DbOrTx, params: { agentId: string }) {
  return db
    .select()
    .from(inputVariableDefinitions)
    .where(and(eq(inputVariableDefinitions.agentId, params.agentId), isNull(inputVariableDefinitions.deletedAt)))
    .orderBy(asc(inputVariableDefinitions.position), asc(inputVariableDefinitions.createdAt));
}

/** The live extracted variables; `customerDefinedOnly` leaves out the system defaults (what the API lists). */
export function findExtractedVariableDefinitions(db: DbOrTx, params: { agentId: string; customerDefinedOnly: boolean }) {
  return db
    .select()
    .from(extractedVariableDefinitions)
    .where(
      and(
        eq(extractedVariableDefinitions.agentId, params.agentId),
        isNull(extractedVariableDefinitions.deletedAt),
        params.customerDefinedOnly ? eq(extractedVariableDefinitions.systemDefault, false) : undefined,
      ),
    )
    .orderBy(asc(extractedVariableDefinitions.position), asc(extractedVariableDefinitions.createdAt));
}

/** Outcomes are never deleted; `enabledCustomerDefinedOnly` keeps what the API lists (enabled, defined by the customer). */
export function findOutcomeDefinitions(db: DbOrTx, params: { agentId: string; enabledCustomerDefinedOnly: boolean }) {
  return db
    .select()
    .from(outcomeDefinitions)
    .where(
      and(
        eq(outcomeDefinitions.agentId, params.agentId),
        params.enabledCustomerDefinedOnly ? and(eq(outcomeDefinitions.enabled, true), eq(outcomeDefinitions.customerDefined, true)) : undefined,
      ),
    )
    .orderBy(asc(outcomeDefinitions.position), asc(outcomeDefinitions.createdAt));
}

/**
 * Auto-pause (the dial gate): PAUSED with the reason and `pause_source` 'auto-pause', only if it is still ACTIVE (a
 * person who paused or archived it meanwhile keeps their decision). `paused_at` also starts the next failure window.
 */
export async function pauseAgentAutomatically(db: DbOrTx, params: { agentId: string; reason: string; now: Date }): Promise<boolean> {
  const updated = await db
    .update(agents)
    .set({ status: "PAUSED", pauseReason: params.reason, pauseSource: "auto-pause", pausedAt: params.now, updatedAt: params.now })
    .where(and(eq(agents.id, params.agentId), eq(agents.status, "ACTIVE")))
    .returning({ id: agents.id });
  return updated.length > 0;
}
