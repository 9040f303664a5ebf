import { describe, expect, it } from "vitest";
import { SIMULATED_OUTCOMES, planSimulatedCall, renderSimulatedTranscript, simulatedOutcomeFor } from "@/server/voice/simulator/script";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { createConversationWav, parseWavHeader } from "@/server/voice/simulator/wav";
import type { VoiceProviderEvent } from "@/server/voice/types";
import { placeCallRequest } from "./fixtures";

describe("simulated voice engine", () => {
  it("chooses the scenario by the number's last digit (DESIGN §7)", () => {
    const expected = ["Goal Completed", "Goal Not Completed", "Voicemail", "Busy", "No Conversation", "Opted Out", "Invalid Phone Number", "Failed", "Goal Completed", "Goal Not Completed"];
    for (let digit = 0; digit <= 9; digit += 1) {
      expect(simulatedOutcomeFor(`+1202555010${digit}`).expectedResultType).toBe(expected[digit]);
    }
    expect(SIMULATED_OUTCOMES.filter((row) => row.hasRecording).map((row) => row.digit)).toEqual([0, 1, 2, 4, 5, 8]);
    expect(SIMULATED_OUTCOMES.filter((row) => row.hasTranscript).map((row) => row.digit)).toEqual([0, 1, 2, 4, 5, 8, 9]);
  });

  it("gives realistic, deterministic durations: zero only for calls that never connected", () => {
    for (let digit = 0; digit <= 9; digit += 1) {
      const request = placeCallRequest(`+1202555010${digit}`);
      const plan = planSimulatedCall(request);
      expect(planSimulatedCall(request).durationSeconds).toBe(plan.durationSeconds);
      if ([3, 6, 7].includes(digit)) expect(plan.durationSeconds).toBe(0);
      else expect(plan.durationSeconds).toBeGreaterThanOrEqual(8);
    }
    expect(planSimulatedCall(placeCallRequest("+12025550100")).durationSeconds).toBeGreaterThanOrEqual(180);
  });

  it("writes the transcript in the agent's voice with the contact's name and variables", () => {
    const request = placeCallRequest("+12025550101");
    const transcript = renderSimulatedTranscript(request, planSimulatedCall(request), new Date("2026-03-02T15:00:00Z"), null)!;
    expect(transcript).toContain("this is Ava calling");
    expect(transcript).toContain("Hi Jane");
    expect(transcript).toContain("Acme Corp");
    expect(transcript).toContain("CRM-42");
    expect(transcript.split("\n").every((line) => /^(Agent|Customer): /.test(line))).toBe(true);
    expect(renderSimulatedTranscript(placeCallRequest("+12025550103"), planSimulatedCall(placeCallRequest("+12025550103")), new Date(), null)).toBeNull();
  });

  it("produces a real WAV file (8-bit mono 8 kHz) with speech and pauses", () => {
    const bytes = createConversationWav({ seconds: 20, seed: 7, turns: 2 });
    expect(parseWavHeader(bytes)).toEqual({ sampleRate: 8000, channels: 1, bitsPerSample: 8, seconds: 20 });
    expect(bytes.byteLength).toBe(44 + 20 * 8000);
    expect(Buffer.from(bytes).toString("ascii", 0, 4)).toBe("RIFF");
    const level = (fromSecond: number, toSecond: number) => {
      let peak = 0;
      for (let i = 44 + fromSecond * 8000; i < 44 + toSecond * 8000; i += 1) peak = Math.max(peak, Math.abs(bytes[i]! - 128));
      return peak;
    };
    // Speech at the start of the first turn, a pause at its end (the 20 s are two 10 s turns of up to 5 s speech).
    expect(level(0, 4)).toBeGreaterThan(20);
    expect(level(6, 9)).toBeLessThanOrEqual(1);
    expect(level(10, 14)).toBeGreaterThan(20);
  });

  it("records as long as the call lasts (the player and the call's duration agree)", async () => {
    const events: VoiceProviderEvent[] = [];
    const engine = createSimulatedVoiceEngine({ pace: "manual", transport: async (event) => (events.push(event), null), now: () => new Date("2026-03-02T15:00:00Z") });
    const request = placeCallRequest("+12025550100");
    await engine.placeCall(request);
    await engine.runPending();
    const ended = events.find((event) => event.type === "call.ended");
    if (ended?.type !== "call.ended") throw new Error("no call.ended");
    expect(ended.durationSeconds).toBeGreaterThanOrEqual(180);
    const header = parseWavHeader(Buffer.from(ended.recording!.contentBase64!, "base64"))!;
    expect(header.seconds).toBe(ended.durationSeconds);
    expect(ended.recording!.durationSeconds).toBe(ended.durationSeconds);
  });

  it("reports ringing, answered and ended through the transport, once per callId", async () => {
    const events: VoiceProviderEvent[] = [];
    const engine = createSimulatedVoiceEngine({ pace: "manual", transport: async (event) => (events.push(event), null), now: () => new Date("2026-03-02T15:00:00Z") });
    const request = placeCallRequest("+12025550102");
    const first = await engine.placeCall(request);
    const second = await engine.placeCall(request);
    expect(second).toEqual({ providerCallId: first.providerCallId, alreadyPlaced: true });
    expect(engine.dialCount(request.callId)).toBe(1);
    expect(events).toHaveLength(0);
    await engine.runPending();
    // A voicemail: the identification disclosure (reported as spoken), then the message, reported live before the end.
    expect(events.map((event) => event.type)).toEqual(["call.ringing", "call.answered", "call.transcript", "call.disclosure", "call.transcript", "call.ended"]);
    expect(events[3]).toMatchObject({ kind: "identification", via: "voicemail", offsetMs: 0 });
    const ended = events[5]!;
    if (ended.type !== "call.ended") throw new Error("unreachable");
    expect(ended.disposition).toBe("voicemail");
    expect(ended.recording?.contentType).toBe("audio/wav");
    expect(parseWavHeader(Buffer.from(ended.recording!.contentBase64!, "base64"))).not.toBeNull();
  });

  it("asks the calendar tool during a digit-0 call when the agent has one, and speaks its answer", async () => {
    const events: VoiceProviderEvent[] = [];
    const engine = createSimulatedVoiceEngine({
      pace: "manual",
      transport: async (event) => {
        events.push(event);
        return event.type === "call.tool" ? { ok: true, message: "Invite sent.", data: { startTime: "2026-03-05T15:00:00.000Z" } } : null;
      },
    });
    const request = placeCallRequest("+12025550100", { agent: { ...placeCallRequest("+1").agent, hasBookingTool: true } });
    await engine.placeCall(request);
    await engine.runPending();
    const types = events.map((event) => event.type).filter((type) => type !== "call.transcript");
    expect(types).toEqual(["call.ringing", "call.answered", "call.tool", "call.disclosure", "call.ended"]);
    const ended = events.at(-1)!;
    if (ended.type !== "call.ended") throw new Error("unreachable");
    expect(ended.transcript).toContain("you're booked for Thursday, March 5 at 10:00 AM");
    // The live lines, in order, say exactly what the final transcript says.
    const live = events.flatMap((event) => (event.type === "call.transcript" ? [`${event.speaker === "agent" ? "Agent" : "Customer"}: ${event.text}`] : []));
    expect(live.join("\n")).toBe(ended.transcript);
    expect(events.findIndex((event) => event.type === "call.tool")).toBeLessThan(events.findIndex((event) => event.type === "call.transcript"));
    // Digit 8 reaches the goal without a meeting, even with a calendar tool.
    const plain: VoiceProviderEvent[] = [];
    const other = createSimulatedVoiceEngine({ pace: "manual", transport: async (event) => (plain.push(event), null) });
    await other.placeCall(placeCallRequest("+12025550108", { agent: request.agent }));
    await other.runPending();
    expect(plain.map((event) => event.type)).not.toContain("call.tool");
  });

  it("reports the transcript line by line while the call is live, and ends early when hung up", async () => {
    const events: VoiceProviderEvent[] = [];
    let hungUp: Promise<boolean> | null = null;
    const engine = createSimulatedVoiceEngine({
      pace: "realtime",
      msPerSimulatedSecond: 20,
      maxConversationMs: 2000,
      transport: async (event) => {
        events.push(event);
        // Hang up right after the third live line.
        if (event.type === "call.transcript" && event.itemId === "turn-3") hungUp = engine.endCall!(event.callId);
        return null;
      },
    });
    const request = placeCallRequest("+12025550101");
    await engine.placeCall(request);
    await engine.idle();
    expect(await hungUp).toBe(true);
    const lines = events.filter((event) => event.type === "call.transcript");
    expect(lines.map((line) => line.type === "call.transcript" && line.itemId)).toEqual(["turn-1", "turn-2", "turn-3"]);
    const ended = events.at(-1)!;
    if (ended.type !== "call.ended") throw new Error("unreachable");
    expect(ended.disposition).toBe("answered");
    expect(ended.transcript!.split("\n")).toHaveLength(3);
    expect(ended.recording!.durationSeconds).toBe(ended.durationSeconds);
    // Once over, there is nothing left to hang up.
    expect(await engine.endCall!(request.callId)).toBe(false);
  });

  it("gathers live lines into call.transcript.batch events when asked (the app's simulator), saying exactly the final transcript", async () => {
    const events: VoiceProviderEvent[] = [];
    const engine = createSimulatedVoiceEngine({
      pace: "realtime",
      msPerSimulatedSecond: 20,
      maxConversationMs: 1500,
      transcriptBatchMs: 400,
      transport: async (event) => (events.push(event), null),
    });
    await engine.placeCall(placeCallRequest("+12025550101"));
    await engine.idle();
    expect(events.some((event) => event.type === "call.transcript")).toBe(false);
    const batches = events.flatMap((event) => (event.type === "call.transcript.batch" ? [event.lines] : []));
    const lines = batches.flat();
    // More than one batch (lines are sent while the call is live), far fewer batches than lines.
    expect(batches.length).toBeGreaterThan(1);
    expect(batches.length).toBeLessThan(lines.length);
    expect(lines.map((line) => line.itemId)).toEqual(lines.map((_, index) => `turn-${index + 1}`));
    const ended = events.at(-1)!;
    if (ended.type !== "call.ended") throw new Error("unreachable");
    expect(lines.map((line) => `${line.speaker === "agent" ? "Agent" : "Customer"}: ${line.text}`).join("\n")).toBe(ended.transcript);
  });
});
