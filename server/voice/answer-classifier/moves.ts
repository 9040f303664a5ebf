import type { ResultType } from "@/db/schema";
import { screenerAnswerOf } from "@/server/voice/call-quality";
import type { EffectiveAnswerMoves } from "./answer-moves";
import type { AnswerVerdict } from "./types";

/**
 * The policy of the first seconds (issue 37): from the agent's effective moves (answer-moves.ts) and the classifier's
 * verdicts so far, what the call does now. Pure: the media bridge asks it on every new verdict and on its own tick, and
 * carries out the answer (speak, stay silent, press keys, end with a result). Thresholds and rules are in
 * docs/call-quality.md, "Moves".
 */

/** A `human` verdict at or above this is a confirmed person; below it (the classifier's provisional 0.55) the agent speaks anyway. */
export const CONFIRMED_HUMAN_CONFIDENCE = 0.7;
/** A verdict other than `human` is acted on from this confidence; below it the agent keeps listening. */
export const ACT_CONFIDENCE = 0.6;
/** Moves that end the call (hang up, end as an invalid number) need this much: hanging up on a person is the worst error. */
export const END_CONFIDENCE = 0.85;
/** Nobody who says "Hello?" waits longer than this for the agent when no verdict says otherwise. */
export const MAX_SILENT_WAIT_MS = 1000;

export type MoveAgent = { name: string; callPurpose: string | null; phoneMenuGoal: string | null };

export type MoveInput = {
  moves: EffectiveAnswerMoves;
  /** Every verdict so far, in order; the last one is current (a later verdict revises the earlier ones). */
  verdicts: readonly AnswerVerdict[];
  /** Now, in ms of callee audio from the answer (the verdicts' clock). */
  nowMs: number;
  /** The end of the callee's latest utterance, null while they have said nothing (or are still speaking). */
  calleeSpeechEndMs: number | null;
  agent: MoveAgent;
};

export type CallAction =
  /** Say nothing yet: no verdict, or one not sure enough to act on. */
  | { kind: "listen"; reason: string }
  /** Talk with the person now. `provisional`: not yet a confirmed person; `holdSensitive`: a screener was heard and no person is confirmed yet. */
  | { kind: "converse"; provisional: boolean; holdSensitive: boolean; reason: string }
  /** Voicemail: silent until the beep ends (`speakNow` once `beepEndMs` is known), then the agent's message, whole. */
  | { kind: "leave-voicemail"; speakNow: boolean; beepEndMs: number | null }
  /** A phone menu: press_digits or speech toward `goal` (null = toward a person), then go on with whoever is reached. */
  | { kind: "navigate"; goal: string | null }
  /** A call screener: say `announcement`, then wait for the person; nothing sensitive until one is confirmed. */
  | { kind: "announce-and-wait"; announcement: string; holdSensitive: true }
  /** A hold queue: stay on the line, silent, until someone picks up. */
  | { kind: "wait" }
  /** A carrier intercept: end with this result and suppress the number for the organization with this reason. */
  | { kind: "end"; result: Extract<ResultType, "Invalid Phone Number">; suppressReason: string }
  | { kind: "hang-up"; reason: string };

const ENDING_MOVES = new Set(["hang-up", "end-invalid-number"]);

export function actionOf(input: MoveInput): CallAction {
  const { moves, verdicts, nowMs, calleeSpeechEndMs, agent } = input;
  const current = verdicts.at(-1);
  const screenerHeard = verdicts.some((verdict) => verdict.answerClass === "screener");

  if (current?.answerClass === "human") {
    const provisional = current.confidence < CONFIRMED_HUMAN_CONFIDENCE;
    return { kind: "converse", provisional, holdSensitive: screenerHeard && provisional, reason: current.reason };
  }

  const move = current ? moves[current.answerClass] : null;
  const sure = current && move ? current.confidence >= (ENDING_MOVES.has(move) ? END_CONFIDENCE : ACT_CONFIDENCE) : false;
  if (current && move && sure) {
    switch (move) {
      case "leave-voicemail": {
        const beepEndMs = current.beepEndMs ?? null;
        return { kind: "leave-voicemail", speakNow: beepEndMs !== null && nowMs >= beepEndMs, beepEndMs };
      }
      case "navigate":
        return { kind: "navigate", goal: agent.phoneMenuGoal?.trim() || null };
      case "announce-and-wait":
        return { kind: "announce-and-wait", announcement: screenerAnswerOf(agent), holdSensitive: true };
      case "wait":
        return { kind: "wait" };
      case "end-invalid-number":
        return { kind: "end", result: "Invalid Phone Number", suppressReason: `Carrier intercept at ${(current.atMs / 1000).toFixed(1)} s: ${current.reason}` };
      case "hang-up":
        return { kind: "hang-up", reason: `${current.answerClass}: ${current.reason}` };
      default: {
        // A move added to the vocabulary fails to compile here until it has its action.
        const unhandled: never = move;
        throw new Error(`no action for the move ${String(unhandled)}`);
      }
    }
  }

  // No verdict to act on: a person who said something and then stopped is answered within a second.
  if (calleeSpeechEndMs !== null && nowMs - calleeSpeechEndMs >= MAX_SILENT_WAIT_MS) {
    return { kind: "converse", provisional: true, holdSensitive: screenerHeard, reason: `no verdict ${MAX_SILENT_WAIT_MS} ms after the callee spoke` };
  }
  return { kind: "listen", reason: current ? `${current.answerClass} at ${current.confidence} is not enough for ${move}` : "no verdict yet" };
}
