import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { and, eq } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { optOuts } from "@/db/schema";
import { getRecordingStore } from "@/server/storage/recording-store";
import { parseWavHeader } from "@/server/voice/simulator/wav";
import { localRecordingPath } from "@/server/storage/recording-store";
import { readFileSync } from "node:fs";
import { useTestDb } from "@/tests/helpers/db";
import { apiClient } from "@/tests/helpers/api";
import { callsOf, createEngineOrganization, enroll, ledgerOf, sequenceOf, startCallEngine, type CallEngineHarness } from "./harness";

const db = useTestDb();
let engine: CallEngineHarness | null = null;

beforeAll(() => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "call-engine-outcomes-"));
});
afterEach(async () => {
  await engine?.stop();
  engine = null;
});

type Row = { digit: number; resultType: string; lifecycle: "done" | "failed" | "in progress"; transcript: boolean; recording: boolean; charged: boolean };

const TABLE: Row[] = [
  { digit: 0, resultType: "Goal Completed", lifecycle: "done", transcript: true, recording: true, charged: true },
  { digit: 1, resultType: "Goal Not Completed", lifecycle: "in progress", transcript: true, recording: true, charged: true },
  { digit: 2, resultType: "Voicemail", lifecycle: "in progress", transcript: true, recording: true, charged: true },
  { digit: 3, resultType: "Busy", lifecycle: "in progress", transcript: false, recording: false, charged: false },
  { digit: 4, resultType: "No Conversation", lifecycle: "in progress", transcript: true, recording: true, charged: true },
  { digit: 5, resultType: "Opted Out", lifecycle: "done", transcript: true, recording: true, charged: true },
  { digit: 6, resultType: "Invalid Phone Number", lifecycle: "failed", transcript: false, recording: false, charged: false },
  { digit: 7, resultType: "Failed", lifecycle: "in progress", transcript: false, recording: false, charged: false },
  { digit: 8, resultType: "Goal Completed", lifecycle: "done", transcript: true, recording: true, charged: true },
  { digit: 9, resultType: "Goal Not Completed", lifecycle: "in progress", transcript: true, recording: false, charged: true },
];

describe("call engine: the outcome table (DESIGN §7) end to end", () => {
  it("dials, analyses, charges and moves each sequence per its number's last digit", async () => {
    const start = new Date("2026-03-02T15:00:00Z");
    engine = await startCallEngine(db, { start });
    const { organization, apiKey, agent } = await createEngineOrganization(db);
    const enrolled = [];
    for (const row of TABLE) {
      enrolled.push(await enroll(db, { agent, phoneNumber: `+1202555017${row.digit}`, now: start }));
    }
    await engine.settle();

    for (const [index, row] of TABLE.entries()) {
      const sequenceId = enrolled[index]!.sequenceId;
      const [first, second] = await callsOf(db, sequenceId);
      const label = `digit ${row.digit}`;
      expect(first!.resultType, label).toBe(row.resultType);
      expect((await sequenceOf(db, sequenceId)).lifecycleStatus, label).toBe(row.lifecycle);
      expect(first!.dialedAt, label).toEqual(start);
      expect(first!.fromPhoneNumber, label).toBe(agent.phoneNumbers[0]);
      expect(first!.providerCallId, label).toMatch(/^sim-/);
      expect(first!.analyzedAt, label).not.toBeNull();
      expect(first!.transcript !== null, label).toBe(row.transcript);
      expect(first!.recordingKey !== null, label).toBe(row.recording);
      if (row.recording) {
        expect(await getRecordingStore().exists(first!.recordingKey!)).toBe(true);
        expect(parseWavHeader(readFileSync(localRecordingPath(first!.recordingKey!)))?.sampleRate).toBe(8000);
        expect(first!.recordingContentType).toBe("audio/wav");
      }
      if (row.transcript && row.digit !== 2) expect(first!.transcript, label).toContain("Agent: Hi Jane, this is Ava calling.");
      expect(first!.duration > 0, label).toBe(row.charged);
      // The next step exists only for non-terminal results, one day later.
      if (row.lifecycle === "in progress") {
        expect(second!.resultType, label).toBe("Scheduled");
        expect(second!.scheduledAt.getTime() - first!.endedAt!.getTime(), label).toBe(86_400_000);
      } else {
        expect(second, label).toBeUndefined();
      }
      // Extracted variables are keyed by every definition; outcomes name configured, enabled definitions.
      expect(Object.keys(first!.extractedVariables).sort(), label).toEqual(["budget", "call_sentiment", "callback_time", "interest_level"]);
      for (const outcome of first!.outcomes) expect(["Meeting booked", "Interested", "Not interested"], label).toContain(outcome.name);
    }

    // Credits: one ledger row per charged call, 1 credit per started minute.
    const ledger = await ledgerOf(db, organization.id);
    const firstCalls = await Promise.all(enrolled.map(async (created) => (await callsOf(db, created.sequenceId))[0]!));
    const charged = firstCalls.filter((_, index) => TABLE[index]!.charged);
    expect(ledger.map((row) => row.callId).sort()).toEqual(charged.map((call) => call.id).sort());
    for (const call of charged) {
      const row = ledger.find((entry) => entry.callId === call.id)!;
      expect(row.credits).toBe(Math.ceil(call.duration / 60));
      expect(row.agentId).toBe(agent.id);
      expect(row.createdAt).toEqual(call.endedAt);
    }
    const usage = await apiClient(db)("/credits/usage", { key: apiKey, query: { orgId: organization.orgId, month: "2026-03" } });
    expect(usage.status).toBe(200);
    expect(usage.body.organization.spentCredits).toBe(ledger.reduce((sum, row) => sum + row.credits, 0));
    expect(usage.body.agents[0]).toMatchObject({ agentId: agent.id, transactionCount: charged.length });

    // Opted Out suppresses the number organization-wide.
    const suppressed = await db.select().from(optOuts).where(and(eq(optOuts.organizationId, organization.id), eq(optOuts.phoneNumber, "+12025550175")));
    expect(suppressed).toHaveLength(1);

    // One call/analyzed per call, carrying the full call-result payload.
    expect(engine.analyzed.map((event) => event.callId).sort()).toEqual(firstCalls.map((call) => call.id).sort());
    const opted = engine.analyzed.find((event) => event.callId === firstCalls[5]!.id)!;
    expect(opted.payload).toMatchObject({
      callId: firstCalls[5]!.id,
      agentId: agent.id,
      agentName: "Ava",
      phoneNumber: "+12025550175",
      fromPhoneNumber: agent.phoneNumbers[0],
      direction: "outbound",
      callStatus: "opted-out",
      attempt: 1,
      customInputVariables: { company_name: "Acme Corp", crm_ref: "CRM-42" },
      sequence: { sequenceId: enrolled[5]!.sequenceId, lifecycleStatus: "done" },
      callResult: { resultType: "Opted Out", outcomes: [{ name: "Not interested", reasoning: expect.any(String) }] },
      crmSchedulingDetails: {},
    });
    expect(opted.payload.callUrl).toContain(encodeURIComponent(firstCalls[5]!.id));
    expect(opted.payload.promptVersionId).toBe(agent.currentPromptVersionId);
    expect(opted.payload.callResult).not.toHaveProperty("followUpMeetingDetails");

    // A day later the second step runs for the non-terminal ones; with no step left they end `done`.
    await engine.advance(86_400_000 + 1000);
    for (const [index, row] of TABLE.entries()) {
      if (row.lifecycle !== "in progress") continue;
      const calls = await callsOf(db, enrolled[index]!.sequenceId);
      expect(calls.map((call) => call.resultType), `digit ${row.digit}`).toEqual([row.resultType, row.resultType]);
      expect(calls[1]!.stepNumber).toBe(2);
      expect((await sequenceOf(db, enrolled[index]!.sequenceId)).lifecycleStatus, `digit ${row.digit}`).toBe("done");
    }
    // Every dial happened exactly once.
    for (const created of enrolled) {
      for (const call of await callsOf(db, created.sequenceId)) expect(engine.simulator.dialCount(call.id)).toBe(1);
    }
  }, 120_000);
});
