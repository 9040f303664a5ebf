import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, sequences } from "@/db/schema";
import { dialDueCall } from "@/server/services/call-engine/dial-call";
import type { PlaceCallRequest, VoiceEngine } from "@/server/voice/types";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "@/tests/factories";
import { callStep } from "./harness";

const db = useTestDb();

/** A voice engine of the given kind that records what it was asked to dial (the engine interface is ours). */
function recordingEngine(kind: string) {
  const placed: PlaceCallRequest[] = [];
  const engine: VoiceEngine = {
    kind,
    maxCallWallSeconds: 60,
    placeCall: async (request) => {
      placed.push(request);
      return { providerCallId: `${kind}-${request.callId}`, alreadyPlaced: false };
    },
    callState: async () => ({ state: "active" }),
  };
  return { engine, placed };
}

async function dueDemoCall(demo: boolean) {
  const { organization } = await createTestOrganization(db);
  const agent = await createTestAgent(db, organization.id, { steps: [callStep()] });
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id, steps: [callStep()], demo, phoneNumber: "+12125550170" });
  const call = await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date(Date.now() - 1000), resultType: "Scheduled" });
  return { sequence, call };
}

describe("demo data and real voice engines", () => {
  it("a seeded (demo) sequence's due call is never placed through a real engine: cancelled with the reason, sequence ended", async () => {
    const { sequence, call } = await dueDemoCall(true);
    const real = recordingEngine("twilio-realtime");
    const outcome = await dialDueCall(db, { callId: call.id, now: new Date(), voiceEngine: real.engine });
    expect(outcome).toMatchObject({ status: "skipped", reason: "demo-data" });
    expect(real.placed).toEqual([]);
    const [after] = await db.select().from(calls).where(eq(calls.id, call.id));
    expect(after).toMatchObject({ resultType: "Cancelled", summary: expect.stringMatching(/demo data is only ever called by the voice simulator/) });
    const [ended] = await db.select().from(sequences).where(eq(sequences.id, sequence.id));
    expect(ended!.lifecycleStatus).toBe("cancelled");
  });

  it("the simulator dials demo data, and a real engine dials everything else", async () => {
    const demo = await dueDemoCall(true);
    const simulator = recordingEngine("simulator");
    expect(await dialDueCall(db, { callId: demo.call.id, now: new Date(), voiceEngine: simulator.engine })).toMatchObject({ status: "dialed" });
    expect(simulator.placed.map((request) => request.callId)).toEqual([demo.call.id]);

    const real = await dueDemoCall(false);
    const twilio = recordingEngine("twilio-realtime");
    expect(await dialDueCall(db, { callId: real.call.id, now: new Date(), voiceEngine: twilio.engine })).toMatchObject({ status: "dialed" });
    expect(twilio.placed.map((request) => request.callId)).toEqual([real.call.id]);
  });
});
