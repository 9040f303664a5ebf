import { and, eq, inArray, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { sequences, type ChainStatus, type ResultType } from "@/db/schema";
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

  // Without jitter, contacts that share a zone, bypass flag and explicit time share their first due time.
  const jitterFree = agent.steps.every((step) => step.delaySecondsMax === null || step.delaySecondsMax <= step.delaySeconds);
  const plans = new Map<string, ReturnType<typeof planFirstCall>>();
  const planFor = (contact: EnrollmentContact, scheduledAt: Date | null) => {
    const key = `${contact.timezone}|${contact.bypassCallWindows}|${contact.scheduledAt ?? ""}`;
    if (jitterFree && plans.has(key)) return plans.get(key)!;
    const plan = planFirstCall({
      steps: agent.steps,
      contactTimezone: contact.timezone,
      agentTimezone: agent.agentTimezone,
      bypassCallWindows: contact.bypassCallWindows,
      scheduledAt,
      now,
      random: params.random,
    });
    if (jitterFree) plans.set(key, plan);
    return plan;
  };

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
    const plan = chainStatus === "waiting" ? null : planFor(contact, scheduledAt);
    return { contact, sequenceId: newId("call-sequence"), chainStatus, chainPosition, scheduledAt, plan };
  });

  // One statement per table whatever the chunk size: the rows travel as one JSON parameter and are expanded by
  // jsonb_to_recordset (a multi-row VALUES list would cost a fresh prepared statement and ~20 parameters per row).
  const sequenceRows = planned.map((row) => ({
    id: row.sequenceId,
    batch_index: batchId ? row.contact.index : null,
    name: row.contact.name,
    phone_number: row.contact.phoneNumber,
    phone_number_ext: row.contact.phoneNumberExt,
    to_email_address: row.contact.toEmailAddress,
    timezone: row.contact.timezone,
    custom_input_variables: row.contact.customInputVariables,
    scheduled_at: row.scheduledAt?.toISOString() ?? null,
    bypass_call_windows: row.contact.bypassCallWindows,
    group_key: row.contact.groupKey,
    group_by_field: row.contact.groupKey ? row.contact.groupByField : null,
    chain_position: row.chainPosition,
    chain_status: row.chainStatus,
    consent: row.contact.consent ?? null,
  }));
  const nowIso = now.toISOString();
  const inserted = await tx.execute<{ id: string }>(sql`
    insert into sequences (
      id, organization_id, agent_id, batch_id, batch_index, name, phone_number, phone_number_ext, to_email_address,
      timezone, custom_input_variables, scheduled_at, bypass_call_windows, scheduled_by, steps, group_key,
      group_by_field, chain_position, chain_status, consent, created_at, updated_at
    )
    select r.id, ${agent.organizationId}::text, ${agent.agentId}::text, ${batchId}::text, r.batch_index, r.name, r.phone_number,
      r.phone_number_ext, r.to_email_address, r.timezone, r.custom_input_variables, r.scheduled_at,
      r.bypass_call_windows, ${agent.scheduledBy}::text, ${JSON.stringify(agent.steps)}::jsonb, r.group_key,
      r.group_by_field, r.chain_position, r.chain_status, r.consent, ${nowIso}::timestamptz, ${nowIso}::timestamptz
    from jsonb_to_recordset(${JSON.stringify(sequenceRows)}::jsonb) as r(
      id text, batch_index integer, name text, phone_number text, phone_number_ext text, to_email_address text,
      timezone text, custom_input_variables jsonb, scheduled_at timestamptz, bypass_call_windows boolean,
      group_key text, group_by_field text, chain_position integer, chain_status text, consent jsonb
    )
    on conflict (batch_id, batch_index) do nothing
    returning id`);
  const insertedIds = new Set(inserted.map((row) => row.id));
  const created = planned.filter((row) => insertedIds.has(row.sequenceId));

  const firstCalls = created
    .filter((row) => row.plan !== null)
    .map((row) => ({
      id: newId("call"),
      sequenceId: row.sequenceId,
      stepNumber: row.plan!.stepNumber,
      scheduledAt: row.plan!.dueAt,
    }));
  if (firstCalls.length > 0) {
    const callRows = firstCalls.map((call) => ({
      id: call.id,
      sequence_id: call.sequenceId,
      step_number: call.stepNumber,
      scheduled_at: call.scheduledAt.toISOString(),
    }));
    await tx.execute(sql`
      insert into calls (
        id, organization_id, agent_id, sequence_id, step_number, attempt, scheduled_at, result_type,
        prompt_version_id, created_at, updated_at
      )
      select r.id, ${agent.organizationId}::text, ${agent.agentId}::text, r.sequence_id, r.step_number, 1, r.scheduled_at,
        ${"Scheduled" satisfies ResultType}::text, ${agent.promptVersionId}::text, ${nowIso}::timestamptz, ${nowIso}::timestamptz
      from jsonb_to_recordset(${JSON.stringify(callRows)}::jsonb) as r(
        id text, sequence_id text, step_number integer, scheduled_at timestamptz
      )`);
  }
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
