/**
 * The shapes of the call-quality measurements stored on calls (`calls.quality`) and, while a call is live, on its
 * Twilio row (`twilio_calls.quality`). Types only: what each figure means and how it is measured is in
 * docs/call-quality.md and server/voice/call-quality.ts.
 */
export const answeredByClasses = ["human", "machine", "fax", "ivr", "screener", "unknown"] as const;
export type AnsweredByClass = (typeof answeredByClasses)[number];

export const greetingModes = ["on-answer", "wait-for-callee"] as const;
export type GreetingMode = (typeof greetingModes)[number];

export const answeredByActionKinds = ["converse", "hang-up", "leave-message", "answer-screener"] as const;
export type AnsweredByAction = (typeof answeredByActionKinds)[number];
/** Per class of answerer other than a person (a person is always conversed with); missing classes take the defaults. */
export type AnsweredByActions = Partial<Record<Exclude<AnsweredByClass, "human">, AnsweredByAction>>;

/** One response of the agent to the contact, in milliseconds (`atMs`: from the stream start to the end of the contact's speech). */
export type QualityTurn = {
  atMs: number;
  responseMs: number;
  modelMs: number;
  bridgeMs: number;
  heldMs: number;
  /** Where the end of the contact's speech came from: the model's `speech_stopped`, or our energy detection. */
  speechEnd: "model" | "energy";
};

export const qualityEventKinds = ["callee-speech", "agent-speech", "turn", "interruption", "dead-air", "amd", "classified"] as const;
export type QualityEventKind = (typeof qualityEventKinds)[number];
export type QualityEvent = { atMs: number; kind: QualityEventKind; durationMs?: number; label?: string };

/** What the media bridge measured on one stream (twilio_calls.quality); every time from the stream start. */
export type BridgeQuality = {
  greetingMode: GreetingMode;
  /** Stream start → first agent audio frame sent to Twilio; null when the agent never spoke. */
  greetingMs: number | null;
  turns: QualityTurn[];
  interruptions: number;
  deadAirSeconds: number;
  /** The model's own classification of the answerer (report_answered_by), if it gave one. */
  modelClass: AnsweredByClass | null;
  durationMs: number;
  events: QualityEvent[];
};

/** Stored on the call when it ended (calls.quality). */
export type CallQuality = BridgeQuality & {
  source: "twilio-realtime" | "simulator";
  answeredBy: AnsweredByClass;
  /** Twilio's answering-machine detection: its raw result and how long it took from the answer. */
  amd: { result: string; decisionMs: number | null } | null;
};
