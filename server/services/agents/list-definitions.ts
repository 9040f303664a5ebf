import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { assertAgentInOrganization, findExtractedVariableDefinitions, findInputVariableDefinitions } from "@/db/queries/agents";
import { agents, outcomeDefinitions } from "@/db/schema";
import { AppError } from "@/server/errors";

export type AgentScopedParams = { organizationId: string; agentId: string };

/** Only non-deleted definitions. */
export async function listInputVariables(db: DbOrTx, params: AgentScopedParams) {
  await assertAgentInOrganization(db, params);
  const rows = await findInputVariableDefinitions(db, { agentId: params.agentId });
  return { inputVariables: rows.map((row) => ({ slug: row.slug, displayName: row.displayName, description: row.description })) };
}

/** Only non-deleted, customer-defined definitions (system defaults are excluded). */
export async function listExtractedVariables(db: DbOrTx, params: AgentScopedParams) {
  await assertAgentInOrganization(db, params);
  const rows = await findExtractedVariableDefinitions(db, { agentId: params.agentId, customerDefinedOnly: true });
  return {
    extractedVariables: rows.map((row) => ({
      slug: row.slug,
      displayName: row.displayName,
      description: row.description,
      type: row.type,
      ...(row.type === "DROPDOWN" ? { dropdownOptions: row.dropdownOptions ?? [] } : {}),
      ...(row.type === "DATE/TIME"
        ? { datetimeFormat: row.datetimeFormat ?? "yyyy-MM-dd HH:mm:ss", formatDatetimeInUtc: row.formatDatetimeInUtc ?? false }
        : {}),
    })),
  };
}

/** Only enabled, customer-defined outcomes. One query: the agent join also proves it belongs to the organization. */
export async function listOutcomes(db: DbOrTx, params: AgentScopedParams) {
  const rows = await db
    .select({ outcomeDefinitionId: outcomeDefinitions.id, name: outcomeDefinitions.name, agentId: agents.id })
    .from(agents)
    .leftJoin(
      outcomeDefinitions,
      and(
        eq(outcomeDefinitions.agentId, agents.id),
        eq(outcomeDefinitions.enabled, true),
        eq(outcomeDefinitions.customerDefined, true),
      ),
    )
    .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)))
    .orderBy(asc(outcomeDefinitions.position), asc(outcomeDefinitions.createdAt));
  if (rows.length === 0) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);
  return {
    outcomes: rows
      .filter((row) => row.outcomeDefinitionId !== null)
      .map((row) => ({ outcomeDefinitionId: row.outcomeDefinitionId!, name: row.name! })),
  };
}
