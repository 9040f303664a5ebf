import type { AnswerClass } from "@/server/voice/answer-classifier/types";
import type { AnsweredByAction, AnsweredByActions, AnsweredByClass, BridgeQuality, CallQuality, QualityEvent, QualityTurn } from "@/db/schema";

/**
 * Call quality: what the figures of docs/call-quality.md are made of, shared by both voice engines. The real engine's
 * media bridge measures a `BridgeQuality` (quality-recorder.ts); Twilio's answering-machine result is added when the
 * call ends (`callQualityOf`); the deterministic simulator produces the same `CallQuality` shape.
 */

/** A person is always talked to; these are the defaults for the other classes (an agent's settings override them). */
export const DEFAULT_ANSWERED_BY_ACTIONS = {
  machine: "leave-message",
  fax: "hang-up",
  ivr: "hang-up",
  screener: "answer-screener",
  unknown: "converse",
} as const satisfies Required<AnsweredByActions>;

/** The actions each class allows (the console and the tRPC schema enforce these). */
export const ANSWERED_BY_ALLOWED_ACTIONS = {
  machine: ["leave-message", "hang-up"],
  fax: ["hang-up"],
  ivr: ["hang-up", "converse"],
  screener: ["answer-screener", "leave-message", "hang-up"],
  unknown: ["converse", "hang-up"],
} as const satisfies Record<keyof AnsweredByActions, readonly AnsweredByAction[]>;

export function answeredByActionFor(actions: AnsweredByActions | null | undefined, answeredBy: AnsweredByClass): AnsweredByAction {
  if (answeredBy === "human") return "converse";
  const chosen = actions?.[answeredBy];
  const allowed: readonly AnsweredByAction[] = ANSWERED_BY_ALLOWED_ACTIONS[answeredBy];
  return chosen && allowed.includes(chosen) ? chosen : DEFAULT_ANSWERED_BY_ACTIONS[answeredBy];
}

export type EffectiveAnsweredByActions = { [K in keyof typeof ANSWERED_BY_ALLOWED_ACTIONS]: (typeof ANSWERED_BY_ALLOWED_ACTIONS)[K][number] };

/** Every class's action as it applies: the agent's choice where it is allowed, else the default. */
export function effectiveAnsweredByActions(actions: AnsweredByActions | null | undefined): EffectiveAnsweredByActions {
  const of = (answeredBy: keyof typeof ANSWERED_BY_ALLOWED_ACTIONS) => answeredByActionFor(actions, answeredBy);
  return { machine: of("machine"), fax: of("fax"), ivr: of("ivr"), screener: of("screener"), unknown: of("unknown") } as EffectiveAnsweredByActions;
}

/** Twilio's `AnsweredBy` (human, machine_start, machine_end_beep, machine_end_silence, machine_end_other, fax, unknown) as a class. */
export function answeredByClassOfAmd(result: string | null | undefined): AnsweredByClass {
  if (!result) return "unknown";
  if (result === "human") return "human";
  if (result.startsWith("machine")) return "machine";
  if (result === "fax") return "fax";
  return "unknown";
}

/**
 * The answer classifier's class (server/voice/answer-classifier) as the stored and published `answeredBy`, whose six
 * values the API promises (server/schemas/call.ts): a voicemail is a `machine` as before; a carrier intercept and a
 * hold queue are neither a person nor a machine's greeting, so `unknown` (the call's result and the verdict say more).
 */
export const ANSWERED_BY_OF_ANSWER_CLASS = {
  human: "human",
  voicemail: "machine",
  ivr: "ivr",
  screener: "screener",
  fax: "fax",
  intercept: "unknown",
  "hold-queue": "unknown",
} as const satisfies Record<AnswerClass, AnsweredByClass>;

/** The stored `answeredBy` of a call from the classifier's last verdict (a revised verdict counts, not the first); `unknown` without one. */
export function answeredByOfVerdict(verdict: { answerClass: AnswerClass } | null | undefined): AnsweredByClass {
  return verdict ? ANSWERED_BY_OF_ANSWER_CLASS[verdict.answerClass] : "unknown";
}

/** What the agent says to an automated call screener: its name and the call's purpose (agent settings). */
export function screenerAnswerOf(agent: { name: string; callPurpose: string | null }): string {
  const purpose = agent.callPurpose?.trim().replace(/[.!?\s]+$/, "");
  return purpose ? `This is ${agent.name}, calling ${purpose}.` : `This is ${agent.name}, returning the contact's enquiry.`;
}

/** The value at the p-th percentile (nearest rank) of a list; null for an empty list. */
/**
 * A call with several streams in turn (keys pressed, a transfer nobody answered: each resumes the conversation on a
 * new stream) keeps one record: the first stream's greeting, every stream's turns, interruptions, dead air and
 * events. `offsetMs` places the later stream's times on the first one's clock (its start minus the answer).
 */
export function mergeStreamQuality(previous: BridgeQuality | null, next: BridgeQuality, offsetMs: number): BridgeQuality {
  if (!previous) return next;
  const shift = Math.max(previous.durationMs, Math.round(offsetMs));
  return {
    greetingMode: previous.greetingMode,
    greetingMs: previous.greetingMs ?? (next.greetingMs === null ? null : next.greetingMs + shift),
    turns: [...previous.turns, ...next.turns.map((turn) => ({ ...turn, atMs: turn.atMs + shift }))],
    interruptions: previous.interruptions + next.interruptions,
    deadAirSeconds: previous.deadAirSeconds + next.deadAirSeconds,
    modelClass: previous.modelClass ?? next.modelClass,
    durationMs: shift + next.durationMs,
    events: [...previous.events, ...next.events.map((event) => ({ ...event, atMs: event.atMs + shift }))],
  };
}

export function percentileOf(values: number[], p: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** The call's quality from the bridge's measurements and Twilio's AMD result (the model's classification wins over AMD's). */
export function callQualityOf(bridge: BridgeQuality | null, amd: { result: string | null; durationMs: number | null }, streamed: boolean): CallQuality | null {
  const amdPart = amd.result ? { result: amd.result, decisionMs: amd.durationMs } : null;
  if (!bridge && !amdPart && !streamed) return null;
  const base: BridgeQuality = bridge ?? { greetingMode: "on-answer", greetingMs: null, turns: [], interruptions: 0, deadAirSeconds: 0, modelClass: null, durationMs: 0, events: [] };
  return { ...base, source: "twilio-realtime", answeredBy: base.modelClass ?? answeredByClassOfAmd(amd.result), amd: amdPart };
}

export type TCallQualityPublic = {
  greetingMs: number | null;
  turns: number;
  responseMs: { p50: number; p95: number; max: number } | null;
  modelMs: { p50: number; p95: number } | null;
  bridgeMs: { p50: number; p95: number } | null;
  interruptions: number;
  deadAirSeconds: number;
  answeredBy: AnsweredByClass;
  amd: { result: string; decisionMs: number | null } | null;
  turnLatencies: Array<Pick<QualityTurn, "atMs" | "responseMs" | "modelMs" | "bridgeMs" | "heldMs">>;
  durationMs: number;
  timeline: QualityEvent[];
};

/** The `quality` object of the call metadata and the webhook (null when nothing was measured: never answered). */
export function publicQualityOf(quality: CallQuality | null | undefined): TCallQualityPublic | null {
  if (!quality) return null;
  const response = quality.turns.map((turn) => turn.responseMs);
  const model = quality.turns.map((turn) => turn.modelMs);
  const bridge = quality.turns.map((turn) => turn.bridgeMs);
  return {
    greetingMs: quality.greetingMs,
    turns: quality.turns.length,
    responseMs: response.length ? { p50: percentileOf(response, 50)!, p95: percentileOf(response, 95)!, max: Math.max(...response) } : null,
    modelMs: model.length ? { p50: percentileOf(model, 50)!, p95: percentileOf(model, 95)! } : null,
    bridgeMs: bridge.length ? { p50: percentileOf(bridge, 50)!, p95: percentileOf(bridge, 95)! } : null,
    interruptions: quality.interruptions,
    deadAirSeconds: quality.deadAirSeconds,
    answeredBy: quality.answeredBy,
    amd: quality.amd,
    turnLatencies: quality.turns.map(({ atMs, responseMs, modelMs, bridgeMs, heldMs }) => ({ atMs, responseMs, modelMs, bridgeMs, heldMs })),
    durationMs: quality.durationMs,
    timeline: quality.events,
  };
}
