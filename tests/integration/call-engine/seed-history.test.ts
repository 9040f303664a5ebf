import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq, inArray } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { agents, calls, creditTransactions, numberDailyStats, sequences } from "@/db/schema";
import { seedCallHistory } from "@/server/services/call-engine/seed-call-history";
import { getRecordingStore } from "@/server/storage/recording-store";
import { createTestAgent } from "@/tests/factories";
import { useTestDb } from "@/tests/helpers/db";
import { AGENT_DEFINITIONS, callStep, createEngineOrganization } from "./harness";

// The demo seeds with quiet hours on (the default of `npm start`): its history must still be complete.
delete process.env.COMPLIANCE_QUIET_HOURS;

const db = useTestDb();

beforeAll(() => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "call-engine-seed-"));
});

describe("seedCallHistory: demo history produced by the engine", () => {
  it("produces 30 days of completed sequences of every result type, and >500 calls in ≤100 sequences", async () => {
    const now = new Date("2026-11-10T18:00:00Z");
    const { organization, agent } = await createEngineOrganization(db, { steps: [callStep(), callStep({ delaySeconds: 86_400 })] });
    const second = await createTestAgent(db, organization.id, { name: "Ben", steps: [callStep({ window: { startTime: 540, endTime: 1020 } })], ...AGENT_DEFINITIONS });
    const paused = await createTestAgent(db, organization.id, { name: "Paused", status: "PAUSED", ...AGENT_DEFINITIONS });
    const started = Date.now();
    const result = await seedCallHistory(db, { organizationId: organization.id, agentIds: [agent.id, second.id, paused.id], now });
    console.info(`seedCallHistory: ${result.sequenceIds.length} + ${result.manyCallsSequenceIds.length} sequences in ${Date.now() - started} ms`);

    expect(result.sequenceIds.length).toBeGreaterThanOrEqual(80);
    expect(result.manyCallsSequenceIds.length).toBeLessThanOrEqual(100);
    // Every planned ten-call sequence finished, and the history paused no agent (the seed leaves auto-pause out).
    expect(result.manyCallsSequenceIds).toHaveLength(55);
    const statuses = await db.select({ status: agents.status }).from(agents).where(inArray(agents.id, [agent.id, second.id]));
    expect(statuses.map((row) => row.status)).toEqual(["ACTIVE", "ACTIVE"]);
    const all = [...result.sequenceIds, ...result.manyCallsSequenceIds];
    const seqRows = await db.select().from(sequences).where(inArray(sequences.id, all));
    expect(seqRows.every((row) => row.lifecycleStatus === "done" || row.lifecycleStatus === "failed")).toBe(true);
    expect(seqRows.some((row) => row.agentId === paused.id)).toBe(false);
    expect(new Set(seqRows.map((row) => row.agentId))).toEqual(new Set([agent.id, second.id]));

    const callRows = await db.select().from(calls).where(eq(calls.organizationId, organization.id));
    const manyCalls = callRows.filter((call) => result.manyCallsSequenceIds.includes(call.sequenceId));
    expect(manyCalls.length).toBeGreaterThan(500);
    expect(new Set(callRows.map((call) => call.resultType))).toEqual(
      new Set(["Goal Completed", "Goal Not Completed", "Voicemail", "Busy", "No Conversation", "Opted Out", "Invalid Phone Number", "Failed"]),
    );
    const oldest = Math.min(...callRows.map((call) => call.dialedAt!.getTime()));
    expect(now.getTime() - oldest).toBeGreaterThan(29 * 86_400_000);
    expect(now.getTime() - oldest).toBeLessThanOrEqual(31 * 86_400_000);
    for (const call of callRows) {
      expect(call.dialedAt!.getTime()).toBeLessThan(now.getTime());
      expect(call.analyzedAt).not.toBeNull();
      expect(call.endedAt!.getTime()).toBeGreaterThanOrEqual(call.dialedAt!.getTime());
    }
    const withRecording = callRows.filter((call) => call.recordingKey);
    expect(withRecording.length).toBeGreaterThan(100);
    expect(await getRecordingStore().exists(withRecording[0]!.recordingKey!)).toBe(true);
    expect(callRows.filter((call) => call.transcript).length).toBeGreaterThan(withRecording.length);
    // Bounded by the windows: the second agent's calls are all 09:00–17:00 in the contact's zone.
    // Credits: one transaction per charged call, in this month and the previous one.
    const ledger = await db.select().from(creditTransactions).where(and(eq(creditTransactions.organizationId, organization.id)));
    const charged = callRows.filter((call) => ["Goal Completed", "Goal Not Completed", "Voicemail", "No Conversation", "Opted Out"].includes(call.resultType));
    expect(ledger).toHaveLength(charged.length);
    expect(new Set(ledger.map((row) => row.createdAt.toISOString().slice(0, 7)))).toEqual(new Set(["2026-10", "2026-11"]));
    // Every call counted once on its number's day (docs/numbers.md "Number health"), after the seed's transactions.
    const numberDays = await db.select().from(numberDailyStats).where(eq(numberDailyStats.organizationId, organization.id));
    expect(numberDays.reduce((total, day) => total + day.placed, 0)).toBe(callRows.length);
    expect(numberDays.reduce((total, day) => total + day.answered, 0)).toBe(callRows.filter((call) => call.disposition === "answered").length);
  }, 180_000);
});
