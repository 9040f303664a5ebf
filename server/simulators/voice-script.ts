import { corpusItemForNumber, type CorpusClipId, type CorpusItem } from "./answer-corpus/numbers";
import type { VoiceClipId } from "./voice-clips/clips";

/**
 * The deterministic conversations both voice simulators follow, by the last digit of the dialed number (DESIGN §7):
 * the carrier simulators (Twilio's and Telnyx's) play the callee's side through callee-voice.ts (`callee` clips, in
 * turn, each after the agent has finished speaking), and the Realtime simulator answers what it recognizes
 * (`AGENT_REPLIES`), calling the tools on the way.
 */
/**
 * One thing the callee says: a clip, said in turn (after the agent has spoken and gone quiet), or `overAgentAfterMs`
 * into the agent's speech (talking over it: an interruption), or `atOnce` when its turn comes without waiting for
 * the agent (an automated screener does not listen).
 */
export type CalleeLine = CalleeClip | { clip: CalleeClip; overAgentAfterMs?: number; atOnce?: boolean };

/** A recorded clip (voice-clips/), or audio of the answer corpus (answer-corpus/numbers.ts). */
export type CalleeClip = VoiceClipId | CorpusClipId;

export function clipOfLine(line: CalleeLine): CalleeClip {
  return typeof line === "string" ? line : line.clip;
}

export type CalleeScenario =
  | {
      kind: "human";
      lines: CalleeLine[];
      recording: "available" | "missing";
      /** Frames of the other side's silence before the next line (default 40: 0.8 s). */
      replyGapFrames?: number;
      /** Hangs up a second after the last line (a person who took a transfer). */
      hangsUpAfterLastLine?: boolean;
    }
  | {
      kind: "menu";
      /** Said on answer and again every `repeatAfterMs` until a key is pressed (three times, then it hangs up). */
      prompt: CalleeClip;
      /** What each key leads to: said first, then the person who picks up (their lines, in turn). */
      options: Record<string, { connecting: VoiceClipId; lines: VoiceClipId[] }>;
      repeatAfterMs: number;
    }
  | {
      kind: "machine";
      lines: CalleeClip[];
      /** Hangs up a second after the last line (a carrier's intercept message). */
      hangsUpAfterLastLine?: boolean;
      /** Says the last line again and again (a fax machine's CNG) until the call ends. */
      repeatsLastLine?: boolean;
    }
  /**
   * An item of the answer corpus (answer-corpus/numbers.ts): its opening is the callee's first audio, from the first
   * frame; the AMD result is the one modelled for it; then `callee` goes on (its first line or prompt is the opening).
   */
  | { kind: "corpus"; item: CorpusItem; callee: Extract<CalleeScenario, { kind: "human" | "machine" | "menu" }> }
  | { kind: "busy" }
  /** Rings, then the person declines (Twilio reports busy, SIP 603). */
  | { kind: "declined" }
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

/**
 * Variants chosen by the last two digits, each keeping its last digit's outcome: a contact who objects to the
 * recording (…21) and one who reads out a card number and a social security number (…31).
 */
export const CALLEE_VARIANTS: Record<string, CalleeScenario> = {
  "21": { kind: "human", lines: ["callee.hello", "callee.dont-record", "callee.not-now"], recording: "available" },
  "31": { kind: "human", lines: ["callee.hello", "callee.card-and-ssn", "callee.not-now"], recording: "available" },
};

export function calleeScenarioFor(phoneNumber: string): CalleeScenario {
  if (isTransferTargetNumber(phoneNumber)) return transferTargetScenarioFor(phoneNumber);
  const item = corpusItemForNumber(phoneNumber);
  if (item === "out-of-range") return { kind: "invalid-number" };
  if (item) return corpusScenario(item);
  const digits = phoneNumber.replace(/\D/g, "");
  const variant = CALLEE_VARIANTS[digits.slice(-2)];
  if (variant) return variant;
  const digit = Number(digits.slice(-1) || "0");
  return CALLEE_SCENARIOS[digit]!;
}

/**
 * How a corpus item's callee goes on after its opening, by class (docs/voice-twilio.md, "Answer corpus numbers"):
 * - human: the person waits for the agent, then answers as the last digit 0's person does (books a meeting);
 * - voicemail: the greeting (and its beep, when it has one), then it records silence until the caller hangs up;
 * - ivr: the opening is the menu's prompt, said again 2 s after it ends until a key is pressed (three times, then it
 *   hangs up); a wrong key between prompts repeats it at once; the right key (`CORPUS_MENU_KEYS`) says "please hold", then a person
 *   at the desk speaks and answers in turn (books a meeting);
 * - screener: after the caller has spoken (the announcement) and gone quiet, the screened person says hello; then
 *   they answer in turn (books a meeting);
 * - fax: after its CED/CNG opening, CNG cycles (1100 Hz 0.5 s, 3 s of silence) until the caller hangs up;
 * - intercept: the message, then it hangs up a second later;
 * - hold-queue: its opening, 4 s more of hold music, then a person picks up and answers in turn (books a meeting).
 */
export function corpusScenario(item: CorpusItem): CalleeScenario {
  const opening: CorpusClipId = `corpus:${item.id}`;
  const person = { kind: "human", recording: "available" } as const;
  switch (item.label) {
    case "human":
      return { kind: "corpus", item, callee: { ...person, lines: [{ clip: opening, atOnce: true }, "callee.yes-book"] } };
    case "screener":
      return { kind: "corpus", item, callee: { ...person, lines: [{ clip: opening, atOnce: true }, "callee.hello", "callee.yes-book"] } };
    case "hold-queue":
      return {
        kind: "corpus",
        item,
        callee: { ...person, lines: [{ clip: opening, atOnce: true }, { clip: "tone.hold-music", atOnce: true }, { clip: "person.sales-hello", atOnce: true }, "callee.yes-book"] },
      };
    case "ivr": {
      const person: { connecting: VoiceClipId; lines: VoiceClipId[] } = { connecting: "menu.connecting", lines: ["person.sales-hello", "callee.yes-book"] };
      const keys = CORPUS_MENU_KEYS[item.index % CORPUS_MENU_KEYS.length]!;
      return { kind: "corpus", item, callee: { kind: "menu", prompt: opening, options: Object.fromEntries([...keys].map((key) => [key, person])), repeatAfterMs: 2000 } };
    }
    case "voicemail":
      return { kind: "corpus", item, callee: { kind: "machine", lines: [opening] } };
    case "fax":
      return { kind: "corpus", item, callee: { kind: "machine", lines: [opening, "corpus:cng"], repeatsLastLine: true } };
    case "intercept":
      return { kind: "corpus", item, callee: { kind: "machine", lines: [opening], hangsUpAfterLastLine: true } };
  }
}

/**
 * The keys that reach a person in a corpus menu, by its prompt (answer-corpus/openings.ts, index mod 4): "for
 * appointments, press 1; for billing, press 2"; "our menu options have changed" (0, the operator); "please say or enter
 * your account number" (any digit starts it); "for the directory, press 9".
 */
export const CORPUS_MENU_KEYS = ["12", "0", "0123456789", "9"] as const;

/**
 * The people calls are handed to (issue 26): a SIP URI, or a number whose line is 555-02XX (`+1NPA55502XX`). The
 * last digit decides, as for contacts: 3 busy, 4 rings without an answer, 7 declines (busy, SIP 603); any other
 * digit answers — the person greets the caller, listens, says goodbye and hangs up.
 */
export function isTransferTargetNumber(destination: string): boolean {
  return /^sips?:/i.test(destination) || /^\+1\d{3}55502\d{2}$/.test(destination);
}

export const TRANSFER_TARGET_PERSON: CalleeScenario = {
  kind: "human",
  lines: ["person.greeting", "person.goodbye"],
  recording: "available",
  hangsUpAfterLastLine: true,
};

export function transferTargetScenarioFor(destination: string): CalleeScenario {
  const user = /^sips?:/i.test(destination) ? destination.replace(/^sips?:/i, "").split("@")[0]! : destination;
  const digit = user.replace(/\D/g, "").slice(-1);
  if (digit === "3") return { kind: "busy" };
  if (digit === "4") return { kind: "no-answer" };
  if (digit === "7") return { kind: "declined" };
  return TRANSFER_TARGET_PERSON;
}

/** A contact who asks for a person after the agent's introduction, and agrees to what is offered next. */
export const ASKS_FOR_A_PERSON: CalleeScenario = {
  kind: "human",
  lines: ["callee.hello", "callee.talk-to-someone", "callee.yes-please"],
  recording: "available",
  // Long enough that the agent's hand-over line is followed by the transfer, not by the next line.
  replyGapFrames: 125,
};

/** A company's phone menu: "for sales, press 1"; 1 leads to a person at the sales desk. */
export const PHONE_MENU: CalleeScenario = {
  kind: "menu",
  prompt: "menu.prompt",
  options: { "1": { connecting: "menu.connecting", lines: ["person.sales-hello", "callee.not-now"] }, "2": { connecting: "menu.connecting", lines: ["callee.hello-short"] } },
  repeatAfterMs: 8000,
};

/** One step of the agent's scripted response: say a clip, or call a tool. */
export type AgentAction =
  | { say: VoiceClipId; /** What is said, when not the clip's text (the clip is only its voice). */ text?: string }
  /** Text the model was told to say word for word (a tool's `say`); voiced with agent speech of its spoken length. */
  | { sayText: string }
  | { call: "book_meeting" | "opt_out" | "end_call" | "transfer_call" | "press_digits" | "report_answered_by" | "stop_recording"; arguments?: Record<string, unknown> };

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
  "callee.talk-to-someone": [{ call: "transfer_call", arguments: { target: "sales", reason: "The contact asked to talk to someone from sales." } }],
  "callee.yes-please": [{ call: "book_meeting", arguments: { preferredStartTime: null } }],
  "menu.prompt": [{ call: "press_digits", arguments: { digits: "1", reason: "Sales is where a person answers." } }],
  "person.sales-hello": [{ say: "agent.intro" }],
  "callee.dont-record": [{ call: "stop_recording", arguments: { reason: "the contact asked not to be recorded" } }],
  "callee.card-and-ssn": [{ say: "agent.noted" }],
};

/**
 * What the agent says when the engine hands the call back to it with a note (a conversation item it created): a
 * transfer nobody answered → sorry, and the fallback (the scripted agent always offers a meeting).
 */
export function agentReplyToNote(note: string): AgentAction[] {
  if (/transfer/i.test(note) && /not answered|busy|declined|no answer/i.test(note)) return [{ say: "agent.transfer-no-answer" }];
  return [];
}

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
  if (tool === "transfer_call") return [{ say: ok ? "agent.transferring" : "agent.transfer-unavailable" }];
  if (tool === "stop_recording") return [{ say: "agent.recording-stopped" }];
  return [];
}

/** When the callee says nothing for this long (media time) after the agent spoke, the agent checks and hangs up. */
export const CALLEE_SILENCE_TIMEOUT_MS = 6000;
export const AGENT_SILENCE_REPLY: AgentAction[] = [{ say: "agent.still-there" }, { call: "end_call", arguments: { reason: "no answer" } }];

/**
 * A model asked to speak first (`response.create` with nothing to answer) follows its instructions' opening line,
 * when they give one as `Open with: "…"` on a line of its own (the callback greeting,
 * server/voice/conversation/callback-instructions.ts). The simulator cannot synthesize that text: it speaks it in
 * the voice of `agent.intro` and reports the text as the transcript.
 */
export function openingLineOf(instructions: string): AgentAction[] {
  const line = instructions.match(/^Open with: "(.+)"$/m)?.[1];
  return line ? [{ say: "agent.intro", text: line }] : [];
}
