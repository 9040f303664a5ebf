import { and, eq, inArray } from "drizzle-orm";
import type { TAgentConfig } from "@/server/schemas/agent-config";
import type { DbOrTx, Tx } from "@/db";
import { assertAgentPool } from "@/server/services/numbers/pool-numbers";
import { findExtractedVariableDefinitions, findInputVariableDefinitions, getAgentOrThrow } from "@/db/queries/agents";
import { agents, extractedVariableDefinitions, inputVariableDefinitions, outcomeDefinitions, promptVersions } from "@/db/schema";
import { AppError, invalidField } from "@/server/errors";
import { newId } from "@/server/ids";
import { agentFieldsOf, extractedVariableFieldsOf, normalizeAgentConfig, resolveBookingConfig } from "./agent-config";

export type UpdateAgentConfigParams = {
  organizationId: string;
  agentId: string;
  actorUserId: string | null;
  config: TAgentConfig;
  now: Date;
  /** Match definitions sent without an `id` to existing ones by slug / name (REST: a document kept in a repository). */
  matchDefinitionsByKey?: boolean;
};

function assertKnownIds(ids: Array<string | undefined>, known: Set<string>, field: string) {
  ids.forEach((id, i) => {
    if (id !== undefined && !known.has(id)) throw invalidField(`${field}.${i}.id`, "not a definition of this agent");
  });
}

/**
 * Saves the console's whole agent document in one transaction, so `/api/v1` sees either the old or the new
 * configuration. Input and extracted variables left out are soft-deleted (the API then hides them, and old
 * sequences keep their values); outcomes are never deleted, only disabled. A changed prompt becomes a new
 * `prompt-ver.` version and the current one.
 */
export async function updateAgentConfig(db: DbOrTx, params: UpdateAgentConfigParams) {
  const config = normalizeAgentConfig(params.config);
  await assertAgentPool(db, { organizationId: params.organizationId, phoneNumbers: config.phoneNumbers, hasSmsSteps: config.steps.some((step) => step.stepType === "SMS") });
  // Provider calls happen before the transaction, never inside it.
  const stored = await getAgentOrThrow(db, { organizationId: params.organizationId, agentId: params.agentId });
  config.bookingConfig = await resolveBookingConfig(db, {
    organizationId: params.organizationId,
    requested: config.bookingConfig,
    stored: stored.bookingConfig ?? null,
  });
  return db.transaction(async (tx) => {
    if (params.matchDefinitionsByKey) await matchDefinitionsByKey(tx, params.agentId, config);
    // The row lock serializes two saves of the same agent.
    const [agent] = await tx
      .select()
      .from(agents)
      .where(and(eq(agents.id, params.agentId), eq(agents.organizationId, params.organizationId)))
      .for("update");
    if (!agent) throw new AppError("AGENT_NOT_FOUND", `Agent ${params.agentId} was not found.`);

    let promptVersionId = agent.currentPromptVersionId;
    const [currentPrompt] = promptVersionId
      ? await tx.select({ prompt: promptVersions.prompt }).from(promptVersions).where(eq(promptVersions.id, promptVersionId))
      : [];
    const promptChanged = currentPrompt?.prompt !== config.prompt;
    if (promptChanged) {
      promptVersionId = newId("prompt-ver");
      await tx.insert(promptVersions).values({
        id: promptVersionId,
        agentId: agent.id,
        prompt: config.prompt,
        createdByUserId: params.actorUserId,
        createdAt: params.now,
      });
    }

    await tx
      .update(agents)
      .set({
        ...agentFieldsOf(config),
        currentPromptVersionId: promptVersionId,
        ...voiceSettingsOf(config),
        ...callHandlingOf(config),
        updatedAt: params.now,
      })
      .where(eq(agents.id, agent.id));

    await saveInputVariables(tx, agent.id, config.inputVariables, params.now);
    await saveExtractedVariables(tx, agent.id, config.extractedVariables, params.now);
    await saveOutcomes(tx, agent.id, config.outcomes);
    return { agentId: agent.id, promptVersionId: promptVersionId!, promptChanged };
  });
}

/**
 * Definitions sent without an `id` (a document kept in a repository, sent through `PUT /agents/{agentId}`) are the
 * existing ones with the same slug (variables) or name (outcomes, any case): updated, not deleted and made again.
 * System-default extraction variables and system outcomes in the document (as GET /agents/{agentId}/config shows
 * them) are left out: they are not the customer's to edit.
 */
async function matchDefinitionsByKey(tx: Tx, agentId: string, config: TAgentConfig) {
  const [inputs, allExtracted, outcomes] = await Promise.all([
    findInputVariableDefinitions(tx, { agentId }),
    findExtractedVariableDefinitions(tx, { agentId, customerDefinedOnly: false }),
    tx.select({ id: outcomeDefinitions.id, name: outcomeDefinitions.name, customerDefined: outcomeDefinitions.customerDefined }).from(outcomeDefinitions).where(eq(outcomeDefinitions.agentId, agentId)),
  ]);
  // System defaults are not the customer's to edit: GET /agents/{agentId}/config lists them, a PUT of it leaves them be.
  const systemDefaults = allExtracted.filter((row) => row.systemDefault);
  config.extractedVariables = config.extractedVariables.filter((v) => !systemDefaults.some((row) => row.id === v.id || (!v.id && row.slug === v.slug)));
  const extracted = allExtracted.filter((row) => !row.systemDefault);
  const systemOutcomes = outcomes.filter((row) => !row.customerDefined);
  config.outcomes = config.outcomes.filter((o) => !systemOutcomes.some((row) => row.id === o.id || (!o.id && row.name.toLowerCase() === o.name.toLowerCase())));
  const claim = <T extends { id?: string }>(items: T[], keyOf: (item: T) => string, existing: Array<{ id: string; key: string }>) => {
    const taken = new Set(items.map((item) => item.id).filter(Boolean));
    for (const item of items) {
      if (item.id) continue;
      const match = existing.find((row) => row.key === keyOf(item) && !taken.has(row.id));
      if (match) {
        item.id = match.id;
        taken.add(match.id);
      }
    }
  };
  claim(config.inputVariables, (v) => v.slug, inputs.map((row) => ({ id: row.id, key: row.slug })));
  claim(config.extractedVariables, (v) => v.slug, extracted.map((row) => ({ id: row.id, key: row.slug })));
  claim(config.outcomes, (o) => o.name.toLowerCase(), outcomes.filter((row) => row.customerDefined).map((row) => ({ id: row.id, key: row.name.toLowerCase() })));
}

/** The voice-engine settings the document carries (left-out ones keep their stored values). */
export function voiceSettingsOf(config: TAgentConfig) {
  return {
    ...(config.voicemailMessage !== undefined ? { voicemailMessage: config.voicemailMessage } : {}),
    ...(config.ringTimeoutSeconds !== undefined ? { ringTimeoutSeconds: config.ringTimeoutSeconds } : {}),
    ...(config.maxCallSeconds !== undefined ? { maxCallSeconds: config.maxCallSeconds } : {}),
    ...(config.voice !== undefined ? { voice: config.voice } : {}),
    ...(config.greetingMode !== undefined ? { greetingMode: config.greetingMode } : {}),
    ...(config.callPurpose !== undefined ? { callPurpose: config.callPurpose?.trim() || null } : {}),
    ...(config.answeredByActions !== undefined ? { answeredByActions: config.answeredByActions } : {}),
    ...(config.answerMoves !== undefined ? { answerMoves: config.answerMoves } : {}),
    // Empty text = the default disclosure (null); left out = unchanged.
    ...(config.disclosureIdentification !== undefined ? { disclosureIdentification: config.disclosureIdentification?.trim() || null } : {}),
    ...(config.disclosureRecordingNotice !== undefined ? { disclosureRecordingNotice: config.disclosureRecordingNotice?.trim() || null } : {}),
    ...(config.recordingNoticeMode !== undefined ? { recordingNoticeMode: config.recordingNoticeMode } : {}),
  };
}

/** Transfers and phone menus from the document (left-out ones keep their stored values). */
export function callHandlingOf(config: TAgentConfig) {
  return {
    ...(config.transferConfig !== undefined ? { transferConfig: config.transferConfig } : {}),
    ...(config.phoneMenuGoal !== undefined ? { phoneMenuGoal: config.phoneMenuGoal } : {}),
  };
}

async function saveInputVariables(tx: Tx, agentId: string, variables: TAgentConfig["inputVariables"], now: Date) {
  const live = await findInputVariableDefinitions(tx, { agentId });
  const liveIds = new Set(live.map((row) => row.id));
  assertKnownIds(variables.map((v) => v.id), liveIds, "inputVariables");
  const kept = new Set(variables.map((v) => v.id).filter((id): id is string => !!id));
  const removed = [...liveIds].filter((id) => !kept.has(id));
  // Soft deletes first, so a new variable may take the slug of a removed one (the slug index covers live rows only).
  if (removed.length) {
    await tx.update(inputVariableDefinitions).set({ deletedAt: now }).where(inArray(inputVariableDefinitions.id, removed));
  }
  for (const [position, v] of variables.entries()) {
    const values = { slug: v.slug, displayName: v.displayName, description: v.description, required: v.required, position };
    if (v.id) await tx.update(inputVariableDefinitions).set(values).where(eq(inputVariableDefinitions.id, v.id));
    else await tx.insert(inputVariableDefinitions).values({ id: newId("var"), agentId, ...values });
  }
}

async function saveExtractedVariables(tx: Tx, agentId: string, variables: TAgentConfig["extractedVariables"], now: Date) {
  // System defaults are not the customer's: they are neither listed by the API nor editable here.
  const live = await findExtractedVariableDefinitions(tx, { agentId, customerDefinedOnly: true });
  const liveIds = new Set(live.map((row) => row.id));
  assertKnownIds(variables.map((v) => v.id), liveIds, "extractedVariables");
  const kept = new Set(variables.map((v) => v.id).filter((id): id is string => !!id));
  const removed = [...liveIds].filter((id) => !kept.has(id));
  if (removed.length) {
    await tx.update(extractedVariableDefinitions).set({ deletedAt: now }).where(inArray(extractedVariableDefinitions.id, removed));
  }
  for (const [position, v] of variables.entries()) {
    const values = { ...extractedVariableFieldsOf(v), position };
    if (v.id) await tx.update(extractedVariableDefinitions).set(values).where(eq(extractedVariableDefinitions.id, v.id));
    else await tx.insert(extractedVariableDefinitions).values({ id: newId("var"), agentId, systemDefault: false, ...values });
  }
}

async function saveOutcomes(tx: Tx, agentId: string, outcomes: TAgentConfig["outcomes"]) {
  const existing = await tx
    .select({ id: outcomeDefinitions.id })
    .from(outcomeDefinitions)
    .where(and(eq(outcomeDefinitions.agentId, agentId), eq(outcomeDefinitions.customerDefined, true)));
  assertKnownIds(outcomes.map((o) => o.id), new Set(existing.map((row) => row.id)), "outcomes");
  for (const [position, o] of outcomes.entries()) {
    const values = { name: o.name, description: o.description, enabled: o.enabled, position };
    if (o.id) await tx.update(outcomeDefinitions).set(values).where(eq(outcomeDefinitions.id, o.id));
    else await tx.insert(outcomeDefinitions).values({ id: newId("outcome"), agentId, customerDefined: true, ...values });
  }
}
