import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import { AppError } from "@/server/errors";

export type FindAgentParams = { organizationId: string; agentId: string };

/**
 * The agent, scoped to the caller's organization. An agent of another organization is reported exactly
 * like an unknown one (404 AGENT_NOT_FOUND), so its existence never leaks.
 */
export async function getAgentOrThrow(db: DbOrTx, { organizationId, agentId }: FindAgentParams) {
  const rows = await db
    .select()
    .from(agents)
    .where(and(eq(agents.id, agentId), eq(agents.organizationId, organizationId)))
    .limit(1);
  const agent = rows[0];
  if (!agent) throw new AppError("AGENT_NOT_FOUND", `Agent ${agentId} was not found.`);
  return agent;
}

/** Cheap existence check used by the read endpoints and HEAD connectivity checks. */
export async function assertAgentInOrganization(db: DbOrTx, params: FindAgentParams): Promise<void> {
  const rows = await db
    .select({ id: agents.id })
    .from(agents)
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)))
    .limit(1);
  if (!rows[0]) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
}
