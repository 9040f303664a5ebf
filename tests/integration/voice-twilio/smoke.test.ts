import { afterAll, beforeAll, expect, it } from "vitest";
import { calls, twilioCalls, callTranscriptLines } from "@/db/schema";
import { eq } from "drizzle-orm";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestOrganization } from "@/tests/factories";
import { callStep } from "../call-engine/harness";
import { startVoiceStack, type VoiceStack } from "./harness";

const db = useTestDb();
let stack: VoiceStack;
beforeAll(async () => {
  stack = await startVoiceStack(db);
});
afterAll(async () => {
  await stack?.stop();
});

it("smoke: digit 1", async () => {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: ["+12025550101"], steps: [callStep()], prompt: "You are Ava." });
  const api = apiClient(db);
  const res = await api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: apiKey, body: { name: "Jane Doe", phoneNumber: "+12025550181", timezone: "America/New_York" } });
  expect(res.status).toBe(201);
  const sequenceId = res.body.sequence.sequenceId;
  await stack.runUntil(async () => {
    const rows = await db.select().from(calls).where(eq(calls.sequenceId, sequenceId));
    return rows.some((row) => !["Scheduled", "Calling", "Processing Analysis"].includes(row.resultType));
  }, { timeoutMs: 25_000, label: "call result" }).catch((e) => console.log(String(e)));
  const [call] = await db.select().from(calls).where(eq(calls.sequenceId, sequenceId));
  console.log(call?.resultType, call?.transcript, call?.disposition, call?.providerError, call?.recordingKey);
  console.log(await db.select().from(twilioCalls).where(eq(twilioCalls.callId, call!.id)));
  console.log(await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, call!.id)));
  console.log(stack.openai.sessions.map((s) => ({ heard: s.heard, tools: s.toolCalls, events: s.clientEvents.filter((e) => e !== "input_audio_buffer.append").slice(0, 40) })));
  console.log(stack.twilio.callbacks.map((c) => [c.kind, c.params.CallStatus ?? c.params.AnsweredBy ?? c.params.RecordingStatus, c.status]));
  console.log([...stack.twilio.calls.values()].map((c) => c.events));
}, 60_000);
