import { and, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { calls, sequences, type ChainStatus } from "@/db/schema";
import { newId } from "@/server/ids";
import { planFirstCall } from "@/server/services/scheduling/compute-step-due-at";
import type { EnrollmentContact } from "./contact";
import type { AgentSnapshot } from "./schedulable-agent";

export type CreatedSequence = {
  sequenceId: string;
  /** The contact's position in its request. */
  index: number;
  chainStatus: ChainStatus | null;
  chainPosition: number | null;
  /** The first call record (resultType `Scheduled`); null for a chained contact that waits. */
  firstCall: { callId: string; stepNumber: number; scheduledAt: Date } | null;
  createdAt: Date;
};

export type CreateSequencesParams = {
  agent: AgentSnapshot;
  contacts: EnrollmentContact[];
  /** Bulk batch the contacts come from: (batchId, contact.index) is unique, so a repeated chunk creates nothing twice. */
  batchId: string | null;
  now: Date;
  random?: () => number;
};

/** Serializes enrollments into, and hand-overs within, the same chains (agent + group key) until the transaction ends. */
export async function lockChains(tx: Tx, agentId: string, groupKeys: string[]): Promise<void> {
  if (groupKeys.length === 0) return;
  // Sorted keys: every transaction takes the locks in the same order, so two of them cannot deadlock.
  const keys = sql.join(
    [...groupKeys].sort().map((key) => sql`${`${agentId}:${key}`}`),
    sql`, `,
  );
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(k, 0)) from unnest(array[${keys}]::text[]) as u(k)`);
}

/**
 * Creates sequences for validated contacts, inside the caller's transaction: the agent's steps are copied onto each
 * sequence, and each active one gets its first call record (resultType `Scheduled`, due per the scheduling rules).
 *
 * Chaining: a contact with a group key joins the agent's chain for that key at the next position. It is active when
 * no member of the chain is still in progress, otherwise it waits (no call record) until
 * `activateNextChainedContact` hands over to it.
 *
 * Idempotent per (batchId, index): contacts whose sequence already exists are skipped and not returned.
 */
export async function createSequences(tx: Tx, params: CreateSequencesParams): Promise<CreatedSequence[]> {
  const { agent, batchId, now } = params;
  let pending = params.contacts;
  if (pending.length === 0) return [];
  if (batchId) {
    const existing = await tx
      .select({ batchIndex: sequences.batchIndex })
      .from(sequences)
      .where(and(eq(sequences.batchId, batchId), inArray(sequences.batchIndex, pending.map((contact) => contact.index))));
    const done = new Set(existing.map((row) => row.batchIndex));
    pending = pending.filter((contact) => !done.has(contact.index));
    if (pending.length === 0) return [];
  }

  const groupKeys = [...new Set(pending.map((contact) => contact.groupKey).filter((key): key is string => key !== null))];
  const chains = new Map<string, { lastPosition: number; busy: boolean }>();
  if (groupKeys.length > 0) {
    await lockChains(tx, agent.agentId, groupKeys);
    const rows = await tx
      .select({
        groupKey: sequences.groupKey,
        lastPosition: sql<number | null>`max(${sequences.chainPosition})::int`,
        busy: sql<boolean>`bool_or(${sequences.lifecycleStatus} = 'in progress')`,
      })
      .from(sequences)
      .where(and(eq(sequences.agentId, agent.agentId), inArray(sequences.groupKey, groupKeys)))
      .groupBy(sequences.groupKey);
    for (const row of rows) chains.set(row.groupKey!, { lastPosition: row.lastPosition ?? 0, busy: row.busy });
  }

  const planned = pending.map((contact) => {
    let chainStatus: ChainStatus | null = null;
    let chainPosition: number | null = null;
    if (contact.groupKey) {
      const chain = chains.get(contact.groupKey) ?? { lastPosition: 0, busy: false };
      chainPosition = chain.lastPosition + 1;
      chainStatus = chain.busy ? "waiting" : "active";
      chains.set(contact.groupKey, { lastPosition: chainPosition, busy: true });
    }
    const scheduledAt = contact.scheduledAt ? new Date(contact.scheduledAt) : null;
    const plan =
      chainStatus === "waiting"
        ? null
        : planFirstCall({
            steps: agent.steps,
            contactTimezone: contact.timezone,
            agentTimezone: agent.agentTimezone,
            bypassCallWindows: contact.bypassCallWindows,
            scheduledAt,
            now,
            random: params.random,
          });
    return { contact, sequenceId: newId("call-sequence"), chainStatus, chainPosition, scheduledAt, plan };
  });

  const inserted = await tx
    .insert(sequences)
    .values(
      planned.map((row) => ({
        id: row.sequenceId,
        organizationId: agent.organizationId,
        agentId: agent.agentId,
        batchId,
        batchIndex: batchId ? row.contact.index : null,
        name: row.contact.name,
        phoneNumber: row.contact.phoneNumber,
        phoneNumberExt: row.contact.phoneNumberExt,
        toEmailAddress: row.contact.toEmailAddress,
        timezone: row.contact.timezone,
        customInputVariables: row.contact.customInputVariables,
        scheduledAt: row.scheduledAt,
        bypassCallWindows: row.contact.bypassCallWindows,
        scheduledBy: agent.scheduledBy,
        steps: agent.steps,
        groupKey: row.contact.groupKey,
        groupByField: row.contact.groupKey ? row.contact.groupByField : null,
        chainPosition: row.chainPosition,
        chainStatus: row.chainStatus,
        createdAt: now,
        updatedAt: now,
      })),
    )
    .onConflictDoNothing({ target: [sequences.batchId, sequences.batchIndex] })
    .returning({ id: sequences.id });
  const insertedIds = new Set(inserted.map((row) => row.id));
  const created = planned.filter((row) => insertedIds.has(row.sequenceId));

  const firstCalls = created
    .filter((row) => row.plan !== null)
    .map((row) => ({
      id: newId("call"),
      organizationId: agent.organizationId,
      agentId: agent.agentId,
      sequenceId: row.sequenceId,
      stepNumber: row.plan!.stepNumber,
      attempt: 1,
      scheduledAt: row.plan!.dueAt,
      resultType: "Scheduled" as const,
      promptVersionId: agent.promptVersionId,
      createdAt: now,
      updatedAt: now,
    }));
  if (firstCalls.length > 0) await tx.insert(calls).values(firstCalls);
  const callBySequence = new Map(firstCalls.map((call) => [call.sequenceId, call]));

  return created.map((row) => {
    const call = callBySequence.get(row.sequenceId);
    return {
      sequenceId: row.sequenceId,
      index: row.contact.index,
      chainStatus: row.chainStatus,
      chainPosition: row.chainPosition,
      firstCall: call ? { callId: call.id, stepNumber: call.stepNumber, scheduledAt: call.scheduledAt } : null,
      createdAt: now,
    };
  });
}
