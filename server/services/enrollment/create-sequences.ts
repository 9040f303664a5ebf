import { and, eq, inArray, sql, type SQL } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db";
import { bulkBatches, sequences, type ChainStatus, type ResultType } from "@/db/schema";
import { newId } from "@/server/ids";
import { newMessageId } from "@/server/services/sequences/message-steps";
import { planNextStep, type StepPlan } from "@/server/services/scheduling/compute-step-due-at";
import { messageChannelOf } from "@/server/services/sequences/step-kinds";
import type { EnrollmentContact } from "./contact";
import type { AgentSnapshot } from "./schedulable-agent";

export type CreatedSequence = {
  sequenceId: string;
  /** The contact's position in its request. */
  index: number;
  chainStatus: ChainStatus | null;
  chainPosition: number | null;
  /** The first call record (resultType `Scheduled`); null for a chained contact that waits, or a first EMAIL/SMS step. */
  firstCall: { callId: string; stepNumber: number; scheduledAt: Date } | null;
  /** The first step's message record (status `scheduled`) when the sequence starts with an EMAIL or SMS step. */
  firstMessage: { messageId: string; stepNumber: number; scheduledAt: Date } | null;
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

/** How the batch of a bulk chunk records its progress, in the same statement as the chunk's rows. */
export type BatchProgress = { status: "creating" | "completed" };

/** What planning a contact's sequence (chain, first call) reads of it. */
export type PlannedContact = Pick<EnrollmentContact, "index" | "timezone" | "bypassCallWindows" | "scheduledAt" | "groupKey">;

/** A contact stored in a bulk batch (`bulk_batches.contacts`), as planning reads it, and its position there. */
export type StoredContact = PlannedContact & { position: number };

type PlannedRow<C extends PlannedContact> = {
  contact: C;
  sequenceId: string;
  chainStatus: ChainStatus | null;
  chainPosition: number | null;
  scheduledAt: Date | null;
  plan: StepPlan | null;
  callId: string | null;
  messageId: string | null;
};

/** The columns of the rows `writeSequences` inserts (its `r` relation), in this order, with their types. */
const ROW_COLUMNS: ReadonlyArray<readonly [string, string]> = [
  ["id", "text"], ["batch_index", "integer"], ["name", "text"], ["phone_number", "text"], ["phone_number_ext", "text"],
  ["to_email_address", "text"], ["timezone", "text"], ["custom_input_variables", "jsonb"], ["scheduled_at", "timestamptz"],
  ["bypass_call_windows", "boolean"], ["group_key", "text"], ["group_by_field", "text"], ["chain_position", "integer"],
  ["chain_status", "text"], ["consent", "jsonb"], ["call_id", "text"], ["call_step_number", "integer"],
  ["call_scheduled_at", "timestamptz"], ["message_id", "text"], ["message_channel", "text"],
];
const ROW_NAMES = sql.raw(ROW_COLUMNS.map(([name]) => name).join(", "));
const ROW_TYPES = sql.raw(ROW_COLUMNS.map(([name, type]) => `${name} ${type}`).join(", "));

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
  const { batchId } = params;
  // Every row travels as one JSON parameter, expanded by jsonb_to_recordset (a multi-row VALUES list would cost a
  // fresh prepared statement and ~20 parameters per row).
  const fromRows = (planned: PlannedRow<EnrollmentContact>[]) => {
    const rows = planned.map((row) => ({
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
      call_id: row.callId,
      call_step_number: row.plan?.stepNumber ?? null,
      call_scheduled_at: row.plan?.dueAt.toISOString() ?? null,
      message_id: row.messageId,
      message_channel: row.plan ? messageChannelOf(row.plan.stepType) : null,
    }));
    return sql`select * from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as r(${ROW_TYPES})`;
  };
  return (await writeSequences(tx, params, fromRows, null)).created;
}

/**
 * The sequences of one chunk of a bulk batch (see materializeBulkBatchChunk), and the batch's progress: one statement
 * inserts the sequences, their first calls and adds what it inserted to the batch's `created_count` (completing the
 * batch when that reaches `accepted`). The contacts stay in the database: the statement reads them from the batch
 * (`contacts` give their positions there and what planning needs), and only what was planned here travels — ids,
 * chain places, first calls. `existing` are the chunk's contact indexes known to have their sequence already (read
 * with the batch), so nothing is looked up before the insert. Runs on the database directly (the statement is its
 * own transaction) unless a contact has a group key: chaining locks the chains until commit, so then it runs in a
 * transaction of its own (a savepoint when `db` is already a transaction). No class check on `db`: in the built app
 * the transaction object may come from another copy of drizzle-orm than this module's (docs/deploy.md).
 */
export async function createBatchSequences(
  db: DbOrTx,
  params: Omit<CreateSequencesParams, "contacts" | "batchId"> & { contacts: StoredContact[]; batchId: string; existing: ReadonlySet<number> },
): Promise<{ created: CreatedSequence[]; progress: BatchProgress | null }> {
  const { batchId } = params;
  const grouped = params.contacts.some((contact) => contact.groupKey !== null && !params.existing.has(contact.index));
  const fromBatch = (planned: PlannedRow<StoredContact>[]) => {
    const rows = planned.map((row) => ({
      position: row.contact.position,
      id: row.sequenceId,
      chain_position: row.chainPosition,
      chain_status: row.chainStatus,
      call_id: row.callId,
      call_step_number: row.plan?.stepNumber ?? null,
      call_scheduled_at: row.plan?.dueAt.toISOString() ?? null,
      message_id: row.messageId,
      message_channel: row.plan ? messageChannelOf(row.plan.stepType) : null,
    }));
    // The fields as validation stored them (EnrollmentContact), converted as createSequences converts them.
    return sql`
      select p.id, (c.value->>'index')::int, c.value->>'name', c.value->>'phoneNumber', coalesce(c.value->>'phoneNumberExt', ''),
        c.value->>'toEmailAddress', c.value->>'timezone', coalesce(c.value->'customInputVariables', '{}'::jsonb),
        (c.value->>'scheduledAt')::timestamptz, coalesce((c.value->>'bypassCallWindows')::boolean, false),
        c.value->>'groupKey', case when c.value->>'groupKey' is not null then c.value->>'groupByField' end,
        p.chain_position, p.chain_status, nullif(c.value->'consent', 'null'::jsonb),
        p.call_id, p.call_step_number, p.call_scheduled_at, p.message_id, p.message_channel
      from jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) as p(
        position integer, id text, chain_position integer, chain_status text, call_id text, call_step_number integer,
        call_scheduled_at timestamptz, message_id text, message_channel text
      )
      join (
        select e.value, e.n::int - 1 as position
        from ${bulkBatches} b cross join lateral jsonb_array_elements(b.contacts) with ordinality as e(value, n)
        where b.id = ${batchId}
      ) c using (position)`;
  };
  if (grouped) return db.transaction((tx) => writeSequences(tx, params, fromBatch, batchId));
  return writeSequences(db as Tx, params, fromBatch, batchId);
}

/**
 * Plans the contacts' sequences (skipping those of the batch that exist, placing chained ones in their chains,
 * planning first calls) and inserts them with one statement: the sequences from the rows `source` gives (columns
 * ROW_COLUMNS), then the first calls of those actually inserted (a sequence that exists already keeps its calls),
 * then, with `progressOf`, the batch's progress.
 */
async function writeSequences<C extends PlannedContact>(
  tx: Tx,
  params: { agent: AgentSnapshot; contacts: C[]; batchId: string | null; now: Date; random?: () => number; existing?: ReadonlySet<number> },
  source: (planned: PlannedRow<C>[]) => SQL,
  progressOf: string | null,
): Promise<{ created: CreatedSequence[]; progress: BatchProgress | null }> {
  const { agent, batchId, now } = params;
  let pending = params.contacts;
  if (pending.length === 0) return { created: [], progress: null };
  if (batchId) {
    let done = params.existing;
    if (!done) {
      const existing = await tx
        .select({ batchIndex: sequences.batchIndex })
        .from(sequences)
        .where(and(eq(sequences.batchId, batchId), inArray(sequences.batchIndex, pending.map((contact) => contact.index))));
      done = new Set(existing.map((row) => row.batchIndex!));
    }
    const known = done;
    pending = pending.filter((contact) => !known.has(contact.index));
    if (pending.length === 0) return { created: [], progress: null };
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

  // The first step (of any type: CALL, EMAIL or SMS) depends on that step only. Without jitter, contacts that share a
  // zone, bypass flag and explicit time share their first due time (planned once, not once per contact).
  const firstStep = agent.steps[0];
  const jitterFree = !firstStep || firstStep.delaySecondsMax === null || firstStep.delaySecondsMax <= firstStep.delaySeconds;
  const plans = new Map<string, StepPlan | null>();
  const planFor = (contact: C, scheduledAt: Date | null) => {
    const key = `${contact.timezone}|${contact.bypassCallWindows}|${contact.scheduledAt ?? ""}`;
    if (jitterFree && plans.has(key)) return plans.get(key)!;
    const plan = planNextStep({
      steps: agent.steps,
      afterStepNumber: 0,
      previousEndedAt: null,
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

  const planned = pending.map((contact): PlannedRow<C> => {
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
    return {
      contact,
      sequenceId: newId("call-sequence"),
      chainStatus,
      chainPosition,
      scheduledAt,
      plan,
      callId: plan && !messageChannelOf(plan.stepType) ? newId("call") : null,
      messageId: plan && messageChannelOf(plan.stepType) ? newMessageId() : null,
    };
  });

  const nowIso = now.toISOString();
  // A bulk chunk adds what this statement inserted to its batch's progress: ON CONFLICT DO NOTHING returns only the
  // rows created now and the batch row's lock orders concurrent chunks, so a repeated chunk adds nothing and two
  // racing ones add each row once. Its commit need not wait for the WAL flush (a Postgres crash may forget the last
  // fraction of a second of chunks: the batch row, committed with the 202, and its counter then still say what is
  // missing, and the resume sweep creates it again; anything that acts on these rows — a dial, an event — commits
  // synchronously afterwards and so flushes them first).
  const progress = progressOf
    ? sql`, progress as (
        update ${bulkBatches}
        set created_count = ${bulkBatches.createdCount} + (select count(*)::int from inserted),
            status = case when ${bulkBatches.createdCount} + (select count(*)::int from inserted) >= ${bulkBatches.accepted}
                          then 'completed' else 'creating' end,
            completed_at = case when ${bulkBatches.createdCount} + (select count(*)::int from inserted) >= ${bulkBatches.accepted}
                                then coalesce(${bulkBatches.completedAt}, ${nowIso}::timestamptz) end
        where ${bulkBatches.id} = ${progressOf} and (select set_config('synchronous_commit', 'off', true)) is not null
        returning status
      )`
    : sql``;
  const [result] = await tx.execute<{ ids: string[]; status: BatchProgress["status"] | null }>(sql`
    with r(${ROW_NAMES}) as materialized (${source(planned)}), inserted as (
      insert into sequences (
        id, organization_id, agent_id, batch_id, batch_index, name, phone_number, phone_number_ext, to_email_address,
        timezone, custom_input_variables, scheduled_at, bypass_call_windows, scheduled_by, steps, group_key,
        group_by_field, chain_position, chain_status, consent, created_at, updated_at
      )
      select r.id, ${agent.organizationId}::text, ${agent.agentId}::text, ${batchId}::text, r.batch_index, r.name, r.phone_number,
        r.phone_number_ext, r.to_email_address, r.timezone, r.custom_input_variables, r.scheduled_at,
        r.bypass_call_windows, ${agent.scheduledBy}::text, ${JSON.stringify(agent.steps)}::jsonb, r.group_key,
        r.group_by_field, r.chain_position, r.chain_status, r.consent, ${nowIso}::timestamptz, ${nowIso}::timestamptz
      from r
      on conflict (batch_id, batch_index) do nothing
      returning id
    ), first_calls as (
      insert into calls (
        id, organization_id, agent_id, sequence_id, step_number, attempt, scheduled_at, result_type,
        prompt_version_id, created_at, updated_at
      )
      select r.call_id, ${agent.organizationId}::text, ${agent.agentId}::text, r.id, r.call_step_number, 1, r.call_scheduled_at,
        ${"Scheduled" satisfies ResultType}::text, ${agent.promptVersionId}::text, ${nowIso}::timestamptz, ${nowIso}::timestamptz
      from r join inserted on inserted.id = r.id
      where r.call_id is not null
    ), first_messages as (
      insert into sequence_messages (
        id, organization_id, agent_id, sequence_id, step_number, channel, direction, status, scheduled_at,
        next_attempt_at, to_address, created_at, updated_at
      )
      select r.message_id, ${agent.organizationId}::text, ${agent.agentId}::text, r.id, r.call_step_number, r.message_channel,
        'outbound', 'scheduled', r.call_scheduled_at, r.call_scheduled_at,
        coalesce(case when r.message_channel = 'email' then r.to_email_address else r.phone_number end, ''),
        ${nowIso}::timestamptz, ${nowIso}::timestamptz
      from r join inserted on inserted.id = r.id
      where r.message_id is not null
    )${progress}
    select array(select id from inserted) as ids, ${progressOf ? sql`(select status from progress)` : sql`null::text`} as status`);
  const insertedIds = new Set(result?.ids ?? []);
  const status = result?.status ?? null;

  const created = planned
    .filter((row) => insertedIds.has(row.sequenceId))
    .map((row) => ({
      sequenceId: row.sequenceId,
      index: row.contact.index,
      chainStatus: row.chainStatus,
      chainPosition: row.chainPosition,
      firstCall: row.plan && row.callId ? { callId: row.callId, stepNumber: row.plan.stepNumber, scheduledAt: row.plan.dueAt } : null,
      firstMessage: row.plan && row.messageId ? { messageId: row.messageId, stepNumber: row.plan.stepNumber, scheduledAt: row.plan.dueAt } : null,
      createdAt: now,
    }));
  return { created, progress: status ? { status } : null };
}
