import { DateTime } from "luxon";
import type { Db } from "@/db";
import { optOuts } from "@/db/schema";
import { cancelMatchingSequences } from "@/server/services/sequences/cancel-sequences-by-reference";
import { acceptBulkEnrollment } from "./enroll-many";
import { createEnrollment } from "./enroll-one";
import { materializeBulkBatch } from "./materialize-bulk-batch";
import { API_SCHEDULED_BY } from "./schedulable-agent";

export type SeedEnrollmentsParams = {
  organizationId: string;
  /** A schedulable agent requiring at most `company_name` (the demo's `link` agent). */
  agentId: string;
  /** The demo's paused agent, to show that paused agents accept enrollments. */
  pausedAgentId?: string;
  now: Date;
};

export type SeedEnrollmentsResult = {
  /** In progress, first call `Scheduled` tomorrow 10:00 in the contact's zone. */
  scheduledSequenceIds: string[];
  /** `groupByField: account`, value SEED-ACC-1: the first is scheduled, the others wait. */
  chain: { activeSequenceId: string; waitingSequenceIds: string[] };
  /** A bulk batch (materialized) with one rejected contact. */
  batchId: string;
  /** Enrolled with `crm_ref: seed-cancelled`, then cancelled by reference. */
  cancelledSequenceIds: string[];
  pausedAgentSequenceId: string | null;
  /** A number on the organization's suppression list: enrolling it answers 409 OPTED_OUT. */
  optedOutNumber: string;
};

/**
 * Demo enrollments in several states, created through the enrollment services (so they follow every rule) but
 * without events: their calls are due tomorrow, and the call engine's watchdog dials overdue calls anyway.
 */
export async function seedEnrollments(db: Db, params: SeedEnrollmentsParams): Promise<SeedEnrollmentsResult> {
  const { organizationId, agentId, now } = params;
  const tomorrow = DateTime.fromJSDate(now, { zone: "utc" }).plus({ days: 1 }).toFormat("yyyy-MM-dd");
  const enroll = async (targetAgentId: string, body: Record<string, unknown>) =>
    (await createEnrollment(db, { organizationId, agentId: targetAgentId, body, scheduledBy: API_SCHEDULED_BY, now })).sequence;

  const scheduled = [
    await enroll(agentId, { name: "Ada Lovelace", phoneNumber: "+12125550121", company_name: "Analytical Engines", crm_ref: "seed-1", scheduledAt: `${tomorrow}T10:00:00` }),
    await enroll(agentId, { name: "Grace Hopper", phoneNumber: "+14155550122", company_name: "COBOL Inc", crm_ref: "seed-2", scheduledAt: `${tomorrow}T10:00:00` }),
    await enroll(agentId, { name: "Margaret Hamilton", phoneNumber: "+13035550124", company_name: "Apollo", crm_ref: "seed-3", scheduledAt: `${tomorrow}T10:00:00`, customVariables: { account: "SEED-ACC-2" } }),
  ];

  const chained = [];
  for (const [name, phoneNumber] of [
    ["Alan Turing", "+16175550131"],
    ["Joan Clarke", "+16175550132"],
    ["Gordon Welchman", "+16175550134"],
  ] as const) {
    chained.push(
      await enroll(agentId, { name, phoneNumber, company_name: "Bletchley Park", account: "SEED-ACC-1", groupByField: "account", scheduledAt: `${tomorrow}T11:00:00` }),
    );
  }

  const bulk = await acceptBulkEnrollment(db, {
    organizationId,
    agentId,
    idempotencyKey: null,
    scheduledBy: API_SCHEDULED_BY,
    now,
    body: {
      timezone: "America/Chicago",
      contacts: [
        { name: "Katherine Johnson", phoneNumber: "+1 (312) 555-0141", company_name: "NASA", scheduledAt: `${tomorrow}T14:00:00` },
        { name: "Dorothy Vaughan", phoneNumber: "+1 (312) 555-0142", company_name: "NASA", scheduledAt: `${tomorrow}T14:00:00` },
        { name: "Mary Jackson", phoneNumber: "312.555.0141", company_name: "NASA" },
      ],
    },
  });
  await materializeBulkBatch(db, { batchId: bulk.response.batchId, now });

  const cancelled = [
    await enroll(agentId, { name: "Charles Babbage", phoneNumber: "+12065550151", company_name: "Difference Engines", crm_ref: "seed-cancelled", scheduledAt: `${tomorrow}T12:00:00` }),
    await enroll(agentId, { name: "Ada King", phoneNumber: "+12065550152", company_name: "Difference Engines", crm_ref: "seed-cancelled", scheduledAt: `${tomorrow}T12:00:00` }),
  ];
  await cancelMatchingSequences(db, { organizationId, referenceKey: "crm_ref", referenceValue: "seed-cancelled", now });

  const paused = params.pausedAgentId
    ? await enroll(params.pausedAgentId, { name: "Hedy Lamarr", phoneNumber: "+13105550161", company_name: "Frequency Hopping", scheduledAt: `${tomorrow}T10:00:00` })
    : null;

  const optedOutNumber = "+17025550175";
  await db.insert(optOuts).values({ organizationId, phoneNumber: optedOutNumber }).onConflictDoNothing();

  return {
    scheduledSequenceIds: scheduled.map((sequence) => sequence.sequenceId),
    chain: { activeSequenceId: chained[0]!.sequenceId, waitingSequenceIds: chained.slice(1).map((sequence) => sequence.sequenceId) },
    batchId: bulk.response.batchId,
    cancelledSequenceIds: cancelled.map((sequence) => sequence.sequenceId),
    pausedAgentSequenceId: paused?.sequenceId ?? null,
    optedOutNumber,
  };
}
