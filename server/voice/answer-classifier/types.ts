/**
 * The answer classifier's vocabulary (issue 37): who or what picked up an outbound call, decided on the first seconds
 * of the callee's audio (8 kHz), its live transcript and, when it comes, the carrier's answering-machine verdict.
 */
export const answerClasses = ["human", "voicemail", "ivr", "screener", "fax", "intercept", "hold-queue"] as const;
export type AnswerClass = (typeof answerClasses)[number];

/** One verdict; a later one replaces it (a screener that connects the person becomes `human`). */
export type AnswerVerdict = {
  answerClass: AnswerClass;
  /** 0–1: how sure the rule that produced it is (see docs/call-quality.md, "Answer classifier"). */
  confidence: number;
  /** When it was reached, in ms of callee audio from the answer. */
  atMs: number;
  /** Voicemail: the end of the beep, when one was heard (the moment a message may start). */
  beepEndMs?: number;
  /** Which evidence decided it (for the timeline and for debugging a wrong call). */
  reason: string;
};

/** A piece of the callee's live transcript (final text of one utterance), at the time it arrived. */
export type TranscriptEvent = { atMs: number; text: string };

/** The carrier's asynchronous AMD result (Twilio `AnsweredBy`: human, machine_end_beep, machine_start, fax, unknown…). */
export type CarrierAmdEvent = { atMs: number; answeredBy: string };

export const SAMPLE_RATE = 8000;
/** 20 ms, the Media Streams frame. */
export const FRAME_SAMPLES = 160;
export const FRAME_MS = 20;
