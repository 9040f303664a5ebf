import { describe, expect, it } from "vitest";
import { ANSWER_MOVES, answerMoveFor, effectiveAnswerMoves, type AnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import { MAX_SILENT_WAIT_MS, actionOf, type MoveInput } from "@/server/voice/answer-classifier/moves";
import { PROVISIONAL_HUMAN } from "@/server/voice/answer-classifier/answer-classifier";
import { answerClasses, type AnswerClass, type AnswerVerdict } from "@/server/voice/answer-classifier/types";
import { answeredByOfVerdict } from "@/server/voice/call-quality";

const AGENT = { name: "Ava", callPurpose: "about your recent enquiry", phoneMenuGoal: "the sales team" };

function verdict(answerClass: AnswerClass, confidence: number, atMs: number, extra: Partial<AnswerVerdict> = {}): AnswerVerdict {
  return { answerClass, confidence, atMs, reason: `test ${answerClass}`, ...extra };
}

function input(verdicts: AnswerVerdict[], overrides: Partial<MoveInput> & { chosen?: AnswerMoves } = {}): MoveInput {
  const { chosen, ...rest } = overrides;
  return { moves: effectiveAnswerMoves(chosen), verdicts, nowMs: (verdicts.at(-1)?.atMs ?? 0) + 20, calleeSpeechEndMs: null, agent: AGENT, ...rest };
}

describe("the moves vocabulary", () => {
  it("covers every class, defaults to the documented moves, and falls back to the default for a move the class does not allow", () => {
    expect(Object.keys(ANSWER_MOVES).sort()).toEqual([...answerClasses].sort());
    expect(effectiveAnswerMoves(undefined)).toEqual({
      human: "converse",
      voicemail: "leave-voicemail",
      ivr: "navigate",
      screener: "announce-and-wait",
      fax: "hang-up",
      intercept: "end-invalid-number",
      "hold-queue": "wait",
    });
    expect(effectiveAnswerMoves({ voicemail: "hang-up" }).voicemail).toBe("hang-up");
    // A stored value from an older vocabulary (or written by hand) never becomes a move its class does not allow.
    expect(answerMoveFor({ fax: "converse" } as unknown as AnswerMoves, "fax")).toBe("hang-up");
    expect(answerMoveFor({ human: "hang-up" } as unknown as AnswerMoves, "human")).toBe("converse");
  });
});

describe("actionOf: what the call does now", () => {
  it("each class with its default move", () => {
    expect(actionOf(input([verdict("human", 0.9, 900)]))).toMatchObject({ kind: "converse", provisional: false, holdSensitive: false });
    expect(actionOf(input([verdict("voicemail", 0.97, 6000, { beepEndMs: 5900 })]))).toEqual({ kind: "leave-voicemail", speakNow: true, beepEndMs: 5900 });
    expect(actionOf(input([verdict("ivr", 0.8, 2500)]))).toEqual({ kind: "navigate", goal: "the sales team" });
    expect(actionOf(input([verdict("screener", 0.9, 2000)]))).toEqual({
      kind: "announce-and-wait",
      announcement: "This is Ava, calling about your recent enquiry.",
      holdSensitive: true,
    });
    expect(actionOf(input([verdict("fax", 0.95, 1500)]))).toMatchObject({ kind: "hang-up" });
    expect(actionOf(input([verdict("intercept", 0.96, 1200, { reason: "SIT tones" })]))).toEqual({
      kind: "end",
      result: "Invalid Phone Number",
      suppressReason: "Carrier intercept at 1.2 s: SIT tones",
    });
    expect(actionOf(input([verdict("hold-queue", 0.8, 3000)]))).toEqual({ kind: "wait" });
  });

  it("the agent's own moves: hang up on voicemail, menus, screeners, queues; an intercept ended without suppression", () => {
    const chosen: AnswerMoves = { voicemail: "hang-up", ivr: "hang-up", screener: "hang-up", "hold-queue": "hang-up", intercept: "hang-up" };
    for (const answerClass of ["voicemail", "ivr", "screener", "hold-queue", "intercept"] as const) {
      expect(actionOf(input([verdict(answerClass, 0.95, 3000)], { chosen })).kind, answerClass).toBe("hang-up");
    }
    expect(actionOf(input([verdict("ivr", 0.8, 2500)], { agent: { ...AGENT, phoneMenuGoal: "  " } }))).toEqual({ kind: "navigate", goal: null });
  });

  it("voicemail: silent until the beep has ended, then the message", () => {
    expect(actionOf(input([verdict("voicemail", 0.6, 2000)]))).toEqual({ kind: "leave-voicemail", speakNow: false, beepEndMs: null });
    expect(actionOf(input([verdict("voicemail", 0.97, 5000, { beepEndMs: 5400 })], { nowMs: 5000 }))).toEqual({ kind: "leave-voicemail", speakNow: false, beepEndMs: 5400 });
    expect(actionOf(input([verdict("voicemail", 0.97, 5000, { beepEndMs: 5400 })], { nowMs: 5400 }))).toEqual({ kind: "leave-voicemail", speakNow: true, beepEndMs: 5400 });
  });

  it("a person is never hung up on on a weak verdict: ending moves need a sure one, others a fair one", () => {
    expect(actionOf(input([verdict("fax", 0.6, 1500)])).kind).toBe("listen");
    expect(actionOf(input([verdict("intercept", 0.8, 1500)])).kind).toBe("listen");
    expect(actionOf(input([verdict("voicemail", 0.5, 4000)])).kind).toBe("listen");
    expect(actionOf(input([verdict("voicemail", 0.7, 4000)], { chosen: { voicemail: "hang-up" } })).kind).toBe("listen");
    expect(actionOf(input([verdict("voicemail", 0.9, 4000)], { chosen: { voicemail: "hang-up" } })).kind).toBe("hang-up");
    expect(actionOf(input([])).kind).toBe("listen");
  });

  it('nobody who says "Hello?" waits more than 1 s: a provisional human speaks at once, and without any verdict at 1 s', () => {
    const provisional = actionOf(input([verdict("human", PROVISIONAL_HUMAN.confidence, 700)]));
    expect(provisional).toMatchObject({ kind: "converse", provisional: true });
    expect(actionOf(input([], { calleeSpeechEndMs: 600, nowMs: 600 + MAX_SILENT_WAIT_MS - 20 })).kind).toBe("listen");
    expect(actionOf(input([], { calleeSpeechEndMs: 600, nowMs: 600 + MAX_SILENT_WAIT_MS }))).toMatchObject({ kind: "converse", provisional: true });
    // A weak machine guess does not keep a person waiting either.
    expect(actionOf(input([verdict("voicemail", 0.5, 900)], { calleeSpeechEndMs: 700, nowMs: 1700 }))).toMatchObject({ kind: "converse", provisional: true });
    // A sure verdict is acted on instead (a menu's pause is not a person's).
    expect(actionOf(input([verdict("ivr", 0.8, 900)], { calleeSpeechEndMs: 700, nowMs: 1700 })).kind).toBe("navigate");
  });

  it("revisions: the last verdict decides; a screener's person is talked to, sensitive matters held until confirmed", () => {
    const screener = verdict("screener", 0.9, 2000);
    expect(actionOf(input([screener, verdict("human", PROVISIONAL_HUMAN.confidence, 9000)]))).toMatchObject({ kind: "converse", provisional: true, holdSensitive: true });
    expect(actionOf(input([screener, verdict("human", 0.85, 9500)]))).toMatchObject({ kind: "converse", provisional: false, holdSensitive: false });
    // A provisional person that turns out to be a voicemail greeting: silent until the beep.
    expect(actionOf(input([verdict("human", 0.55, 800), verdict("voicemail", 0.97, 5200, { beepEndMs: 5600 })], { nowMs: 5300 }))).toMatchObject({ kind: "leave-voicemail", speakNow: false });
  });
});

describe("answeredByOfVerdict: the classifier's classes as the stored answeredBy", () => {
  it("keeps the six published values", () => {
    expect(answerClasses.map((answerClass) => answeredByOfVerdict({ answerClass }))).toEqual(["human", "machine", "ivr", "screener", "fax", "unknown", "unknown"]);
    expect(answeredByOfVerdict(null)).toBe("unknown");
  });
});
