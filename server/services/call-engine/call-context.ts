import { and, desc, eq, isNotNull } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findExtractedVariableDefinitions, findOutcomeDefinitions } from "@/db/queries/agents";
import { agents, calls, promptVersions } from "@/db/schema";
import type { ExtractionDefinition, OutcomeDefinition } from "@/server/analysis/types";

/** The agent's non-deleted extraction definitions, in their configured order (the keys of extractedVariables). */
export async function findExtractionDefinitions(db: DbOrTx, agentId: string): Promise<Array<ExtractionDefinition & { systemDefault: boolean }>> {
  const rows = await findExtractedVariableDefinitions(db, { agentId, customerDefinedOnly: false });
  return rows.map((row) => ({
    slug: row.slug,
    displayName: row.displayName,
    description: row.description,
    type: row.type,
    dropdownOptions: row.type === "DROPDOWN" ? (row.dropdownOptions ?? []) : null,
    datetimeFormat: row.type === "DATE/TIME" ? (row.datetimeFormat ?? "yyyy-MM-dd HH:mm:ss") : null,
    formatDatetimeInUtc: row.type === "DATE/TIME" ? (row.formatDatetimeInUtc ?? false) : null,
    systemDefault: row.systemDefault,
  }));
}

/** The agent's enabled, customer-defined outcomes: the only names a call's outcomes may carry. */
export async function findAnalysisOutcomes(db: DbOrTx, agentId: string): Promise<OutcomeDefinition[]> {
  const rows = await findOutcomeDefinitions(db, { agentId, enabledCustomerDefinedOnly: true });
  return rows.map((row) => ({ name: row.name, description: row.description }));
}

export async function findPromptText(db: DbOrTx, promptVersionId: string | null): Promise<string> {
  if (!promptVersionId) return "";
  const rows = await db.select({ prompt: promptVersions.prompt }).from(promptVersions).where(eq(promptVersions.id, promptVersionId)).limit(1);
  return rows[0]?.prompt ?? "";
}

export type AgentRow = typeof agents.$inferSelect;

/** The zone used for steps whose `timezoneSource` is the agent: its first timezone (else the contact's). */
export function agentTimezoneOf(agent: Pick<AgentRow, "timezones">, contactTimezone: string): string {
  return agent.timezones[0] ?? contactTimezone;
}

/**
 * The outbound number for a contact from the agent's pool: one in the contact's area (same country code and,
 * for NANP numbers, area code) when the pool has one — local presence answers more often — else a stable pick
 * by the contact's number, so a contact always sees the same caller ID.
 */
export function pickFromPhoneNumber(pool: string[], to: string): string {
  if (pool.length === 0) return "";
  const localPrefix = to.startsWith("+1") ? to.slice(0, 5) : to.slice(0, 4);
  const local = pool.filter((number) => number.startsWith(localPrefix));
  const candidates = local.length > 0 ? local : pool;
  let hash = 0;
  for (const char of to) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return candidates[hash % candidates.length]!;
}

/** A callback's context (docs/sequences.md "Callbacks"): the sequence's latest outbound call, its summary once analysed. */
export async function findCallbackContext(db: DbOrTx, sequenceId: string): Promise<{ lastSummary: string | null; lastCalledAt: string | null }> {
  const [last] = await db
    .select({ summary: calls.summary, dialedAt: calls.dialedAt })
    .from(calls)
    .where(and(eq(calls.sequenceId, sequenceId), eq(calls.direction, "outbound"), isNotNull(calls.dialedAt)))
    .orderBy(desc(calls.dialedAt))
    .limit(1);
  return { lastSummary: last?.summary.trim() || null, lastCalledAt: last?.dialedAt?.toISOString() ?? null };
}
