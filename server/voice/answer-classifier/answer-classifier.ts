import { CadenceTracker } from "./cadence";
import { analyseFrame, decodeUlawFrame } from "./frame-features";
import { scorePhrases, strongestMachineClass, type PhraseScores } from "./phrases";
import { ToneTracker } from "./tone-tracker";
import { FRAME_MS, FRAME_SAMPLES, type AnswerClass, type AnswerVerdict, type CarrierAmdEvent, type TranscriptEvent } from "./types";

type Candidate = Omit<AnswerVerdict, "atMs">;

/** A person said hello and went quiet this long: people wait for an answer, greetings go on (their pauses are shorter). */
const HUMAN_SILENCE_MS = 500;
/** Without a transcript, a person's opening is short and followed by a longer wait. */
const HUMAN_AUDIO_ONLY = { maxSpeechMs: 1800, silenceMs: 650 };
/**
 * A short first utterance and a short pause: a provisional `human` (low confidence) so an agent can start to answer
 * "Hello?" without waiting for the transcript. Revised by any later evidence (a greeting that goes on gets its phrases,
 * its beep or its length); the pause is longer than the gaps between words and most pauses inside one sentence.
 */
export const PROVISIONAL_HUMAN = { maxSpeechMs: 800, silenceMs: 350, confidence: 0.55 };
const MACHINE_CLASSES_A_PERSON_CAN_FOLLOW: AnswerClass[] = ["screener", "hold-queue", "ivr"];

/**
 * The streaming answer classifier (issue 37). Feed it the callee's audio frame by frame, each final utterance of its
 * live transcript and the carrier's AMD result when it comes; it keeps the current verdict and every revision.
 * Pure: no clock, no I/O — time is the callee audio's (20 ms a frame from the answer).
 *
 * The rules, first match wins (docs/call-quality.md, "Answer classifier"): a fax tone; a SIT; a beep after speech
 * (voicemail, with the beep's end); a person speaking after a screener, a queue or a menu; menu, screener, voicemail,
 * intercept or queue phrases; music or ringback; a short hello followed by silence; long speech with a weak phrase;
 * a provisional human on a short first utterance and a short pause; and last the carrier's AMD, which alone never
 * overrides what was heard.
 */
export class AnswerClassifier {
  readonly verdicts: AnswerVerdict[] = [];
  private readonly tones = new ToneTracker();
  private readonly cadence = new CadenceTracker();
  private readonly phraseTotals: PhraseScores = {};
  private lastUtterance: { atMs: number; scores: PhraseScores } | null = null;
  private personAfterMachineMs: number | null = null;
  private amd: CarrierAmdEvent | null = null;
  private nowMs = 0;
  private pending: number[] = [];

  constructor(private readonly onVerdict?: (verdict: AnswerVerdict) => void) {}

  get verdict(): AnswerVerdict | null {
    return this.verdicts.at(-1) ?? null;
  }

  /** µ-law bytes as they arrive (any length; 160 bytes make a 20 ms frame). */
  pushUlaw(bytes: Uint8Array): void {
    const samples = decodeUlawFrame(bytes);
    for (const sample of samples) {
      this.pending.push(sample);
      if (this.pending.length === FRAME_SAMPLES) {
        this.pushFrame(this.pending);
        this.pending = [];
      }
    }
  }

  /** One 20 ms frame of 16-bit linear samples. */
  pushFrame(samples: ArrayLike<number>): void {
    const atMs = this.nowMs;
    const features = analyseFrame(samples);
    this.tones.push(features, atMs);
    const tonal = this.tones.sounding() !== null;
    this.cadence.push(features, atMs, tonal);
    this.nowMs = atMs + FRAME_MS;
    this.update(this.nowMs);
  }

  pushTranscript(event: TranscriptEvent): void {
    const scores = scorePhrases(event.text);
    for (const [answerClass, score] of Object.entries(scores) as Array<[keyof PhraseScores, number]>) {
      if (answerClass !== "human") this.phraseTotals[answerClass] = (this.phraseTotals[answerClass] ?? 0) + score;
    }
    const current = this.verdict?.answerClass;
    if (scores.human && !strongestMachineClass(scores) && current && MACHINE_CLASSES_A_PERSON_CAN_FOLLOW.includes(current)) {
      this.personAfterMachineMs = event.atMs;
    }
    this.lastUtterance = { atMs: event.atMs, scores };
    this.update(Math.max(event.atMs, this.nowMs));
  }

  pushCarrierAmd(event: CarrierAmdEvent): void {
    this.amd = event;
    this.update(Math.max(event.atMs, this.nowMs));
  }

  private update(atMs: number): void {
    const candidate = this.decide();
    if (!candidate) return;
    const current = this.verdict;
    const changed =
      !current ||
      current.answerClass !== candidate.answerClass ||
      candidate.confidence >= current.confidence + 0.05 ||
      (candidate.beepEndMs !== undefined && current.beepEndMs !== candidate.beepEndMs);
    if (!changed) return;
    const verdict = { ...candidate, atMs };
    this.verdicts.push(verdict);
    this.onVerdict?.(verdict);
  }

  private decide(): Candidate | null {
    return (
      this.faxTone() ??
      (this.tones.hasSit() ? { answerClass: "intercept", confidence: 0.96, reason: "SIT tones" } : null) ??
      this.beep() ??
      this.personAfterMachine() ??
      this.strongPhrases() ??
      this.musicOrRingback() ??
      this.hello() ??
      this.weakPhrases() ??
      this.provisionalHuman() ??
      this.carrierAmd()
    );
  }

  private faxTone(): Candidate | null {
    const sounding = this.tones.sounding();
    if (sounding && !sounding.ringback && sounding.hz >= 2050 && sounding.hz <= 2150 && sounding.durationMs >= 800) {
      return { answerClass: "fax", confidence: 0.95, reason: "CED 2100 Hz" };
    }
    if (this.tones.runs.some((run) => run.kind === "ced")) return { answerClass: "fax", confidence: 0.95, reason: "CED 2100 Hz" };
    const cng = this.tones.runs.find((run) => run.kind === "cng");
    if (cng && this.spokenBefore(cng.startMs) < 200) {
      return { answerClass: "fax", confidence: 0.9, reason: "CNG 1100 Hz" };
    }
    return null;
  }

  /** A steady tone after at least a second of speech: the end of a greeting (or a screener's "after the tone"). */
  private beep(): Candidate | null {
    // A lone SIT-like segment or an 1100 Hz tone after speech is a beep too (SIT and fax were ruled out above).
    const beep = this.tones.runs.findLast((run) => run.kind === "beep" || run.kind === "cng" || run.kind === "sit");
    if (!beep) return null;
    if (this.spokenBefore(beep.startMs) < 1000) return null;
    const best = strongestMachineClass(this.phraseTotals);
    if (best && best.answerClass !== "voicemail" && best.score >= 1.2) return { answerClass: best.answerClass, confidence: 0.85, reason: `${best.answerClass} phrases, then a tone` };
    return { answerClass: "voicemail", confidence: 0.97, beepEndMs: beep.endMs, reason: `beep ${beep.hz} Hz after a greeting` };
  }

  private spokenBefore(atMs: number): number {
    return this.cadence.utterances.reduce((sum, utterance) => sum + Math.max(0, Math.min(utterance.endMs ?? atMs, atMs) - utterance.startMs), 0);
  }

  private personAfterMachine(): Candidate | null {
    if (this.personAfterMachineMs === null || this.cadence.speaking) return null;
    return { answerClass: "human", confidence: 0.85, reason: "a person spoke after the screener, queue or menu" };
  }

  private strongPhrases(): Candidate | null {
    const best = strongestMachineClass(this.phraseTotals);
    if (!best || best.score < 1) return null;
    return { answerClass: best.answerClass, confidence: Math.min(0.95, 0.6 + 0.15 * best.score), reason: `${best.answerClass} phrases` };
  }

  private musicOrRingback(): Candidate | null {
    if (this.tones.runs.some((run) => run.kind === "ringback")) return { answerClass: "hold-queue", confidence: 0.8, reason: "ringback" };
    if (this.cadence.musicHeard) return { answerClass: "hold-queue", confidence: 0.7, reason: "unbroken sound (music)" };
    return null;
  }

  private hello(): Candidate | null {
    const cadence = this.cadence;
    if (cadence.firstSpeechMs === null || cadence.speaking) return null;
    const weakMachine = strongestMachineClass(this.phraseTotals);
    if (weakMachine && weakMachine.score >= 0.5) return null;
    if (this.lastUtterance?.scores.human && cadence.silenceMs >= HUMAN_SILENCE_MS) {
      return { answerClass: "human", confidence: this.amd?.answeredBy === "human" ? 0.95 : 0.9, reason: "a hello, then silence" };
    }
    if (cadence.speechMs <= HUMAN_AUDIO_ONLY.maxSpeechMs && cadence.silenceMs >= HUMAN_AUDIO_ONLY.silenceMs) {
      return { answerClass: "human", confidence: this.amd?.answeredBy === "human" ? 0.85 : 0.7, reason: "short speech, then silence" };
    }
    return null;
  }

  /** Only on the first utterance, before any transcript, tone or machine phrase: a later one is not an opening. */
  private provisionalHuman(): Candidate | null {
    const cadence = this.cadence;
    if (cadence.utterances.length !== 1 || cadence.speaking || this.lastUtterance || this.tones.runs.length > 0) return null;
    if (cadence.speechMs > PROVISIONAL_HUMAN.maxSpeechMs || cadence.silenceMs < PROVISIONAL_HUMAN.silenceMs) return null;
    return { answerClass: "human", confidence: PROVISIONAL_HUMAN.confidence, reason: "a short first utterance, then a pause (provisional)" };
  }

  private weakPhrases(): Candidate | null {
    const best = strongestMachineClass(this.phraseTotals);
    if (best && best.score >= 0.5 && (this.cadence.speechMs > 2500 || this.cadence.silenceMs >= 1000)) {
      return { answerClass: best.answerClass, confidence: 0.6, reason: `a ${best.answerClass} phrase and long speech` };
    }
    if (!best && this.cadence.speechMs > 3500) return { answerClass: "voicemail", confidence: 0.5, reason: "long speech, no phrase known" };
    return null;
  }

  private carrierAmd(): Candidate | null {
    const result = this.amd?.answeredBy;
    if (!result || result === "unknown") return null;
    if (result === "human") return { answerClass: "human", confidence: 0.6, reason: "carrier AMD: human" };
    if (result === "fax") return { answerClass: "fax", confidence: 0.6, reason: "carrier AMD: fax" };
    if (result.startsWith("machine")) return { answerClass: "voicemail", confidence: 0.6, reason: `carrier AMD: ${result}` };
    return null;
  }
}
