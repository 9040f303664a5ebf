import type { VoiceClipId } from "./voice-clips/clips";

/**
 * The deterministic conversations both voice simulators follow, by the last digit of the dialed number (DESIGN §7):
 * the Twilio simulator plays the callee's side (`callee` clips, in turn, each after the agent has finished
 * speaking), and the Realtime simulator answers what it recognizes (`AGENT_REPLIES`), calling the tools on the way.
 */
/**
 * One thing the callee says: a clip, said in turn (after the agent has spoken and gone quiet), or `overAgentAfterMs`
 * into the agent's speech (talking over it: an interruption), or `atOnce` when its turn comes without waiting for
 * the agent (an automated screener does not listen).
 */
export type CalleeLine = VoiceClipId | { clip: VoiceClipId; overAgentAfterMs?: number; atOnce?: boolean };

export function clipOfLine(line: CalleeLine): VoiceClipId {
  return typeof line === "string" ? line : line.clip;
}

export type CalleeScenario =
  | { kind: "human"; lines: CalleeLine[]; recording: "available" | "missing" }
  | { kind: "machine"; lines: VoiceClipId[] }
  | { kind: "busy" }
  | { kind: "invalid-number" }
  | { kind: "failed" }
  | { kind: "no-answer" };

/** An automated call screener picks up and asks who is calling and why; the person then takes the call. */
export const SCREENER_SCENARIO: CalleeScenario = { kind: "human", lines: [{ clip: "callee.screener", atOnce: true }, "callee.hello", "callee.not-now"], recording: "available" };
/** A person who says "not now" 1.5 s into the agent's introduction (talking over it). */
export const INTERRUPTING_SCENARIO: CalleeScenario = { kind: "human", lines: ["callee.hello", { clip: "callee.not-now", overAgentAfterMs: 1500 }], recording: "available" };

export const CALLEE_SCENARIOS: Record<number, CalleeScenario> = {
  0: { kind: "human", lines: ["callee.hello", "callee.yes-book"], recording: "available" },
  1: { kind: "human", lines: ["callee.hello", "callee.not-now"], recording: "available" },
  2: { kind: "machine", lines: ["callee.voicemail-greeting", "tone.beep"] },
  3: { kind: "busy" },
  4: { kind: "human", lines: ["callee.hello-short"], recording: "available" },
  5: { kind: "human", lines: ["callee.hello", "callee.remove-me"], recording: "available" },
  6: { kind: "invalid-number" },
  7: { kind: "failed" },
  8: { kind: "human", lines: ["callee.hello", "callee.sign-me-up"], recording: "available" },
  // The recording is reported, but its media is gone when fetched (no retrievable recording).
  9: { kind: "human", lines: ["callee.hello", "callee.not-now"], recording: "missing" },
};

export function calleeScenarioFor(phoneNumber: string): CalleeScenario {
  const digit = Number(phoneNumber.replace(/\D/g, "").slice(-1) || "0");
  return CALLEE_SCENARIOS[digit]!;
}

/** One step of the agent's scripted response: say a clip, or call a tool. */
export type AgentAction =
  | { say: VoiceClipId }
  /** Text the model was told to say word for word (a tool's `say`); voiced with agent speech of its spoken length. */
  | { sayText: string }
  | { call: "book_meeting" | "opt_out" | "end_call" | "report_answered_by"; arguments?: Record<string, unknown> };

/**
 * What the agent answers to each callee utterance it recognizes (nothing to a beep). Like a real model, it answers a
 * voicemail greeting as it would a person: only the engine's answering-machine handling keeps it from talking over one.
 */
export const AGENT_REPLIES: Partial<Record<VoiceClipId, AgentAction[]>> = {
  "callee.screener": [{ call: "report_answered_by", arguments: { answeredBy: "screener" } }],
  "callee.hello": [{ say: "agent.intro" }],
  "callee.voicemail-greeting": [{ say: "agent.intro" }],
  "callee.hello-short": [{ say: "agent.intro" }],
  "callee.yes-book": [{ call: "book_meeting", arguments: { preferredStartTime: "Thursday afternoon" } }],
  "callee.not-now": [{ say: "agent.no-problem" }, { call: "end_call", arguments: { reason: "not interested now" } }],
  "callee.sign-me-up": [{ say: "agent.wonderful" }, { call: "end_call", arguments: { reason: "goal reached" } }],
  "callee.remove-me": [{ call: "opt_out", arguments: {} }],
};

/** What the agent says after a tool's result (`ok` and `say` read from the tool's JSON output). */
export function agentReplyAfterTool(tool: string, ok: boolean, output = ""): AgentAction[] {
  if (tool === "report_answered_by") {
    let say: unknown = null;
    try {
      say = (JSON.parse(output) as { say?: unknown }).say;
    } catch {
      // Not JSON (a background result): nothing to say.
    }
    return typeof say === "string" && say ? [{ sayText: say }] : [];
  }
  if (tool === "book_meeting") return [{ say: ok ? "agent.booked" : "agent.booking-failed" }, { call: "end_call", arguments: { reason: "meeting booked" } }];
  if (tool === "opt_out") return [{ say: "agent.removed" }, { call: "end_call", arguments: { reason: "opted out" } }];
  return [];
}

/** When the callee says nothing for this long (media time) after the agent spoke, the agent checks and hangs up. */
export const CALLEE_SILENCE_TIMEOUT_MS = 6000;
export const AGENT_SILENCE_REPLY: AgentAction[] = [{ say: "agent.still-there" }, { call: "end_call", arguments: { reason: "no answer" } }];
