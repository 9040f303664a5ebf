import type { CallQuality, GreetingMode, QualityEvent, QualityTurn } from "@/db/schema/call-quality";
import type { CallDisposition } from "@/server/voice/types";
import { seededRandom, seedOf } from "./wav";

/**
 * The call quality of a simulated call, deterministic per call ID and plausible next to what the real engine measures
 * (docs/call-quality.md): the greeting within 1 s of the answer (about 2 s with `wait-for-callee`, after the callee's
 * hello), per turn a model latency of 450–1,100 ms plus 1–4 ms of bridge, the first answer held for the
 * answering-machine verdict, about one call in eight with a slow turn (1.6–2.6 s) or an interruption, dead air when the
 * callee never answers, and AMD's class and decision time.
 */
export function simulatedCallQuality(params: {
  callId: string;
  disposition: CallDisposition;
  transcript: string | null;
  durationSeconds: number;
  greetingMode: GreetingMode;
}): CallQuality | null {
  if (params.disposition !== "answered" && params.disposition !== "voicemail") return null;
  const random = seededRandom(seedOf(`${params.callId}:quality`));
  const between = (min: number, max: number) => Math.round(min + random() * (max - min));
  const durationMs = Math.max(1000, params.durationSeconds * 1000);
  const lines = (params.transcript ?? "").split("\n").filter(Boolean);
  const events: QualityEvent[] = [];

  if (params.disposition === "voicemail") {
    const decisionMs = between(7000, 12_000);
    events.push({ atMs: 1000, kind: "callee-speech", durationMs: decisionMs - 2000 }, { atMs: decisionMs, kind: "amd", label: "machine_end_beep" });
    const greetingMs = params.greetingMode === "on-answer" ? between(350, 800) : null;
    if (greetingMs !== null) events.push({ atMs: greetingMs, kind: "agent-speech", durationMs: 1000 - greetingMs }, { atMs: 1000, kind: "interruption" });
    events.sort((a, b) => a.atMs - b.atMs);
    return {
      source: "simulator",
      greetingMode: params.greetingMode,
      greetingMs,
      turns: [],
      interruptions: greetingMs !== null ? 1 : 0,
      deadAirSeconds: 0,
      modelClass: null,
      answeredBy: "machine",
      amd: { result: "machine_end_beep", decisionMs },
      durationMs,
      events,
    };
  }

  const slowCall = random() < 0.12;
  const interrupted = random() < 0.12;
  const step = durationMs / Math.max(1, lines.length);
  const turns: QualityTurn[] = [];
  let greetingMs: number | null = null;
  for (const [index, line] of lines.entries()) {
    const atMs = Math.round(index * step);
    const agent = line.startsWith("Agent:");
    events.push({ atMs, kind: agent ? "agent-speech" : "callee-speech", durationMs: Math.round(step * 0.8) });
    if (!agent) continue;
    if (greetingMs === null && index === 0) greetingMs = params.greetingMode === "on-answer" ? between(420, 900) : between(1800, 3000);
    const previous = lines[index - 1];
    if (!previous?.startsWith("Customer:")) continue;
    const modelMs = slowCall && turns.length === 1 ? between(1600, 2600) : between(450, 1100);
    const bridgeMs = between(10, 40) / 10;
    const heldMs = turns.length === 0 ? between(600, 1200) : 0;
    const responseMs = Math.round(modelMs + bridgeMs + heldMs);
    const speechEnd = Math.max(0, atMs - responseMs);
    turns.push({ atMs: speechEnd, responseMs, modelMs, bridgeMs, heldMs, speechEnd: "model" });
    events.push({ atMs: speechEnd, kind: "turn", durationMs: responseMs, label: `${responseMs} ms` });
  }
  if (greetingMs === null) greetingMs = params.greetingMode === "on-answer" ? between(420, 900) : between(1800, 3000);
  if (interrupted && turns.length > 1) events.push({ atMs: turns[1]!.atMs - 1500, kind: "interruption" });
  // The callee who never answers after the agent's introduction ("Hello?" only): the agent waits, then checks in.
  const customerLines = lines.filter((line) => line.startsWith("Customer:")).length;
  const deadAirMs = customerLines <= 1 && lines.length >= 2 ? between(5500, 6500) : 0;
  if (deadAirMs > 0) events.push({ atMs: Math.max(0, durationMs - deadAirMs - 4000), kind: "dead-air", durationMs: deadAirMs });
  const amdMs = between(2000, 4200);
  events.push({ atMs: amdMs, kind: "amd", label: "human" });
  events.sort((a, b) => a.atMs - b.atMs);
  return {
    source: "simulator",
    greetingMode: params.greetingMode,
    greetingMs,
    turns,
    interruptions: interrupted && turns.length > 1 ? 1 : 0,
    deadAirSeconds: Math.round(deadAirMs / 100) / 10,
    modelClass: null,
    answeredBy: "human",
    amd: { result: "human", decisionMs: amdMs },
    durationMs,
    events,
  };
}
