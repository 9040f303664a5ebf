import type { VoiceClipId } from "./voice-clips/clips";

/**
 * The deterministic conversations both voice simulators follow, by the last digit of the dialed number (DESIGN §7):
 * the Twilio simulator plays the callee's side (`callee` clips, in turn, each after the agent has finished
 * speaking), and the Realtime simulator answers what it recognizes (`AGENT_REPLIES`), calling the tools on the way.
 */
export type CalleeScenario =
  | { kind: "human"; lines: VoiceClipId[]; recording: "available" | "missing" }
  | { kind: "machine"; lines: VoiceClipId[] }
  | { kind: "busy" }
  | { kind: "invalid-number" }
  | { kind: "failed" }
  | { kind: "no-answer" };

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

/**
 * Variants chosen by the last two digits, each keeping its last digit's outcome: a contact who objects to the
 * recording (…21) and one who reads out a card number and a social security number (…31).
 */
export const CALLEE_VARIANTS: Record<string, CalleeScenario> = {
  "21": { kind: "human", lines: ["callee.hello", "callee.dont-record", "callee.not-now"], recording: "available" },
  "31": { kind: "human", lines: ["callee.hello", "callee.card-and-ssn", "callee.not-now"], recording: "available" },
};

export function calleeScenarioFor(phoneNumber: string): CalleeScenario {
  const digits = phoneNumber.replace(/\D/g, "");
  const variant = CALLEE_VARIANTS[digits.slice(-2)];
  if (variant) return variant;
  const digit = Number(digits.slice(-1) || "0");
  return CALLEE_SCENARIOS[digit]!;
}

/** One step of the agent's scripted response: say a clip, or call a tool. */
export type AgentAction = { say: VoiceClipId } | { call: "book_meeting" | "opt_out" | "end_call" | "stop_recording"; arguments?: Record<string, unknown> };

/**
 * What the agent answers to each callee utterance it recognizes (nothing to a beep). Like a real model, it answers a
 * voicemail greeting as it would a person: only the engine's answering-machine handling keeps it from talking over one.
 */
export const AGENT_REPLIES: Partial<Record<VoiceClipId, AgentAction[]>> = {
  "callee.hello": [{ say: "agent.intro" }],
  "callee.voicemail-greeting": [{ say: "agent.intro" }],
  "callee.hello-short": [{ say: "agent.intro" }],
  "callee.yes-book": [{ call: "book_meeting", arguments: { preferredStartTime: "Thursday afternoon" } }],
  "callee.not-now": [{ say: "agent.no-problem" }, { call: "end_call", arguments: { reason: "not interested now" } }],
  "callee.sign-me-up": [{ say: "agent.wonderful" }, { call: "end_call", arguments: { reason: "goal reached" } }],
  "callee.remove-me": [{ call: "opt_out", arguments: {} }],
  "callee.dont-record": [{ call: "stop_recording", arguments: { reason: "the contact asked not to be recorded" } }],
  "callee.card-and-ssn": [{ say: "agent.noted" }],
};

/** What the agent says after a tool's result (`ok` read from the tool's JSON output). */
export function agentReplyAfterTool(tool: string, ok: boolean): AgentAction[] {
  if (tool === "book_meeting") return [{ say: ok ? "agent.booked" : "agent.booking-failed" }, { call: "end_call", arguments: { reason: "meeting booked" } }];
  if (tool === "opt_out") return [{ say: "agent.removed" }, { call: "end_call", arguments: { reason: "opted out" } }];
  if (tool === "stop_recording") return [{ say: "agent.recording-stopped" }];
  return [];
}

/** When the callee says nothing for this long (media time) after the agent spoke, the agent checks and hangs up. */
export const CALLEE_SILENCE_TIMEOUT_MS = 6000;
export const AGENT_SILENCE_REPLY: AgentAction[] = [{ say: "agent.still-there" }, { call: "end_call", arguments: { reason: "no answer" } }];
