import type { AnswerClass } from "./types";

/**
 * The agent's move for each class of answerer the answer classifier decides (issue 37), as data: the one place the
 * vocabulary lives. The agent schema (server/schemas/agent-config.ts), the console's agent settings and the policy
 * (moves.ts) all walk `ANSWER_MOVES`; adding a class to `answerClasses` fails to compile here until it has its moves.
 * No server-only import: the console's client components list the moves too.
 */
export const answerMoveKinds = [
  /** Talk with the person, at once. */
  "converse",
  /** Wait for the beep (or the greeting's end), then leave the agent's voicemail message whole. */
  "leave-voicemail",
  /** Work through the phone menu toward the agent's goal (`phoneMenuGoal`): keys with press_digits, or speech when asked. */
  "navigate",
  /** Say the agent's name and the call's purpose, then wait for the person; nothing sensitive until one is confirmed. */
  "announce-and-wait",
  /** End the call as `Invalid Phone Number` and suppress the number for the organization, with the reason. */
  "end-invalid-number",
  /** Stay on the line, silent, until someone picks up (a hold queue). */
  "wait",
  /** End the call. */
  "hang-up",
] as const;
export type AnswerMove = (typeof answerMoveKinds)[number];

/** The moves each class allows; the first is the default (what an agent that never chose gets). */
export const ANSWER_MOVES = {
  human: ["converse"],
  voicemail: ["leave-voicemail", "hang-up"],
  ivr: ["navigate", "hang-up"],
  screener: ["announce-and-wait", "hang-up"],
  fax: ["hang-up"],
  intercept: ["end-invalid-number", "hang-up"],
  "hold-queue": ["wait", "hang-up"],
} as const satisfies Record<AnswerClass, readonly [AnswerMove, ...AnswerMove[]]>;

/** What is stored on the agent (`agents.answer_moves`) and sent to the API: a partial map; missing classes take the default. */
export type AnswerMoves = { [K in AnswerClass]?: (typeof ANSWER_MOVES)[K][number] };
/** Every class's move as it applies. */
export type EffectiveAnswerMoves = { [K in AnswerClass]: (typeof ANSWER_MOVES)[K][number] };

export function answerMoveFor<K extends AnswerClass>(moves: AnswerMoves | null | undefined, answerClass: K): EffectiveAnswerMoves[K] {
  const allowed: readonly AnswerMove[] = ANSWER_MOVES[answerClass];
  const chosen = moves?.[answerClass];
  return (chosen && allowed.includes(chosen) ? chosen : allowed[0]) as EffectiveAnswerMoves[K];
}

/** The agent's choice where that class allows it, else the default, for every class. */
export function effectiveAnswerMoves(moves: AnswerMoves | null | undefined): EffectiveAnswerMoves {
  const entries = (Object.keys(ANSWER_MOVES) as AnswerClass[]).map((answerClass) => [answerClass, answerMoveFor(moves, answerClass)]);
  return Object.fromEntries(entries) as EffectiveAnswerMoves;
}
