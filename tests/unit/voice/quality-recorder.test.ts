import { describe, expect, it } from "vitest";
import { simulatedCallQuality } from "@/server/voice/simulator/quality";
import { CallQualityRecorder } from "@/server/voice/conversation/quality-recorder";

/** A recorder on a hand-driven clock (ms since the stream start). */
function recorderAt(options: { deadAirMs?: number } = {}) {
  let now = 0;
  const recorder = new CallQualityRecorder({ greetingMode: "on-answer", deadAirMs: options.deadAirMs ?? 3000, now: () => now });
  const at = (ms: number) => {
    now = ms;
    return recorder;
  };
  /** `ms` of µ-law agent audio as one Realtime delta (base64 length). */
  const delta = (responseId: string, ms: number) => ({ type: "response.output_audio.delta", response_id: responseId, delta: "A".repeat(Math.round((ms * 8 * 4) / 3)) });
  return { recorder, at, delta };
}

const LOUD = Buffer.alloc(160, 0x00);
const QUIET = Buffer.alloc(160, 0xff);

describe("the media bridge's call-quality recorder", () => {
  it("greeting delay, a direct turn, a turn held for the AMD verdict and a tool, split model / bridge / held", () => {
    const { at, delta } = recorderAt();
    at(300).modelEvent(delta("greeting", 2000));
    at(302).agentAudioSent();
    at(310).agentAudioSent();
    // The contact answers after the greeting; the verdict comes 800 ms after the end of their speech.
    at(2500).modelEvent({ type: "input_audio_buffer.speech_started" });
    at(3500).modelEvent({ type: "input_audio_buffer.speech_stopped" });
    at(4300).responseRequested();
    at(4700).modelEvent(delta("r1", 1000));
    at(4701).agentAudioSent();
    // A direct turn: the model's delay only.
    at(7000).modelEvent({ type: "input_audio_buffer.speech_started" });
    at(8000).modelEvent({ type: "input_audio_buffer.speech_stopped" });
    at(8400).modelEvent(delta("r2", 500));
    at(8402).agentAudioSent();
    // A tool runs while the contact waits (a function-call response without audio, then the answer).
    at(10_000).modelEvent({ type: "input_audio_buffer.speech_started" });
    at(11_000).modelEvent({ type: "input_audio_buffer.speech_stopped" });
    const done = at(11_300).toolStarted();
    at(11_900);
    done();
    at(12_300).modelEvent(delta("r3", 500));
    at(12_301).agentAudioSent();
    const quality = at(13_000).finish();
    expect(quality.greetingMs).toBe(302);
    expect(quality.turns).toEqual([
      { atMs: 3500, responseMs: 1201, modelMs: 400, bridgeMs: 1, heldMs: 800, speechEnd: "model" },
      { atMs: 8000, responseMs: 402, modelMs: 400, bridgeMs: 2, heldMs: 0, speechEnd: "model" },
      { atMs: 11_000, responseMs: 1301, modelMs: 700, bridgeMs: 1, heldMs: 600, speechEnd: "model" },
    ]);
    expect(quality.interruptions).toBe(0);
  });

  it("an interruption is a clear while the agent plays, counted once; our own clear is not one", () => {
    const { at, delta } = recorderAt();
    at(100).modelEvent(delta("greeting", 3000));
    at(101).agentAudioSent();
    at(1500).playbackCleared();
    at(1510).playbackCleared();
    at(2000).modelEvent(delta("r1", 3000));
    at(2001).agentAudioSent();
    at(2500).ourInterruption(() => at(2500).playbackCleared());
    const quality = at(4000).finish();
    expect(quality.interruptions).toBe(1);
    expect(quality.events.filter((event) => event.kind === "interruption")).toEqual([{ atMs: 1500, kind: "interruption" }]);
    expect(quality.events.filter((event) => event.kind === "agent-speech")).toEqual([
      { atMs: 100, kind: "agent-speech", durationMs: 1400 },
      { atMs: 2000, kind: "agent-speech", durationMs: 500 },
    ]);
  });

  it("without speech events from the model, our energy detection ends the contact's turn", () => {
    const { at, delta } = recorderAt();
    let t = 0;
    for (let i = 0; i < 50; i += 1) at((t += 20)).inboundAudio(LOUD);
    for (let i = 0; i < 30; i += 1) at((t += 20)).inboundAudio(QUIET);
    at(t + 500).modelEvent(delta("r1", 500));
    at(t + 503).agentAudioSent();
    const quality = at(t + 600).finish();
    expect(quality.turns).toEqual([{ atMs: t, responseMs: 503, modelMs: 500, bridgeMs: 3, heldMs: 0, speechEnd: "energy" }]);
  });

  it("dead air: silence on both sides longer than the threshold, counted whole", () => {
    const { at, delta } = recorderAt({ deadAirMs: 3000 });
    at(0).modelEvent(delta("greeting", 1000));
    at(1).agentAudioSent();
    // 1001 → 5001: 4 s of nobody; then the contact, then 2 s (under the threshold) before the end.
    at(5001).modelEvent({ type: "input_audio_buffer.speech_started" });
    at(6001).modelEvent({ type: "input_audio_buffer.speech_stopped" });
    const quality = at(8001).finish();
    expect(quality.deadAirSeconds).toBe(4);
    expect(quality.events.filter((event) => event.kind === "dead-air")).toEqual([{ atMs: 1000, kind: "dead-air", durationMs: 4001 }]);
  });
});

describe("the simulator's call quality", () => {
  const transcript = ["Agent: Hi, this is Ava.", "Customer: Hello, who is this?", "Agent: Ava, from Acme.", "Customer: Not now.", "Agent: No problem, goodbye!"].join("\n");

  it("is deterministic per call and plausible", () => {
    const params = { callId: "call.01abc", disposition: "answered" as const, transcript, durationSeconds: 40, greetingMode: "on-answer" as const };
    const quality = simulatedCallQuality(params)!;
    expect(simulatedCallQuality(params)).toEqual(quality);
    expect(quality.greetingMs).toBeGreaterThanOrEqual(420);
    expect(quality.greetingMs).toBeLessThan(1000);
    expect(quality.turns).toHaveLength(2);
    for (const turn of quality.turns) {
      expect(turn.responseMs).toBe(Math.round(turn.modelMs + turn.bridgeMs + turn.heldMs));
      expect(turn.bridgeMs).toBeLessThan(5);
    }
    expect(quality.turns[0]!.heldMs).toBeGreaterThan(0);
    expect(quality.answeredBy).toBe("human");
    expect(simulatedCallQuality({ ...params, disposition: "voicemail" })).toMatchObject({ answeredBy: "machine", amd: { result: "machine_end_beep" }, turns: [] });
    expect(simulatedCallQuality({ ...params, disposition: "busy" })).toBeNull();
  });
});
