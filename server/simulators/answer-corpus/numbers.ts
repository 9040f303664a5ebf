import { answerClasses, type AnswerClass, type CarrierAmdEvent } from "@/server/voice/answer-classifier/types";
import { encodeUlawSample } from "@/server/voice/g711";
import { buildOpening, CORPUS_COUNTS, type Opening } from "./corpus";
import { concat, tone } from "./synth";

/**
 * The corpus by phone number (issue 37): either carrier simulator answers `+1 NPA 555-3CII` with opening `II` (00–99)
 * of class `C` — 1 human, 2 voicemail, 3 ivr, 4 screener, 5 fax, 6 intercept, 7 hold-queue (the order of
 * `answerClasses`) — of the corpus the bench measures (seed 37). `+1 415 555-3302` is `ivr-02`. The block is outside
 * the fictional 555-01XX numbers (contacts, demo data: their last digit picks the scripted scenario) and the 555-02XX
 * transfer targets; 555-30XX, 555-38XX and 555-39XX are not corpus numbers and keep their last digit's scenario. An
 * index past the class's count (human 63, voicemail 52, …) is not a valid number (the carrier refuses it).
 */
export const CORPUS_SEED = 37;

const CORPUS_NUMBER = /^\+1\d{3}5553([1-7])(\d{2})$/;

export type CorpusItem = { label: AnswerClass; index: number; id: `${AnswerClass}-${string}` };

/** The corpus item a number dials, `out-of-range` for an index past its class's count, null for other numbers. */
export function corpusItemForNumber(phoneNumber: string): CorpusItem | "out-of-range" | null {
  const match = CORPUS_NUMBER.exec(phoneNumber);
  if (!match) return null;
  const label = answerClasses[Number(match[1]) - 1]!;
  const index = Number(match[2]);
  if (index >= CORPUS_COUNTS[label]) return "out-of-range";
  return { label, index, id: `${label}-${match[2]}` };
}

/** The number that answers with this item, in area code `npa`. */
export function corpusNumber(label: AnswerClass, index: number, npa = "415"): string {
  if (!Number.isInteger(index) || index < 0 || index >= CORPUS_COUNTS[label]) throw new Error(`${label} has openings 0 to ${CORPUS_COUNTS[label] - 1}, not ${index}`);
  return `+1${npa}5553${answerClasses.indexOf(label) + 1}${String(index).padStart(2, "0")}`;
}

/** Rendered openings, the few dialled last (rendering one takes tens of milliseconds; a call plays it once). */
const rendered = new Map<string, Opening>();
const CACHED = 4;

/** The item's opening (audio, transcript, modelled AMD), rendered on first use; the same bytes as the bench's. */
export function corpusOpening(item: Pick<CorpusItem, "label" | "index">): Opening {
  const key = `${item.label}-${item.index}`;
  let opening = rendered.get(key);
  if (opening) {
    rendered.delete(key);
  } else {
    opening = buildOpening(item.label, item.index, CORPUS_SEED);
    if (rendered.size >= CACHED) rendered.delete(rendered.keys().next().value!);
  }
  rendered.set(key, opening);
  return opening;
}

/** What Twilio's AMD says for the item, as the bench's "Twilio AMD alone" column models it (render.ts `modelCarrierAmd`). */
export function corpusAmd(item: Pick<CorpusItem, "label" | "index">): CarrierAmdEvent | null {
  return corpusOpening(item).amd;
}

/** A corpus clip of the callee's side: an opening (`corpus:ivr-02`), or a fax machine's CNG cycle (`corpus:cng`). */
export type CorpusClipId = `corpus:${string}`;

let cng: Buffer | null = null;

/** The audio of a corpus clip. */
export function corpusClipAudio(clip: CorpusClipId): Buffer {
  if (clip === "corpus:cng") {
    // T.30 CNG: 1100 Hz for 0.5 s, then 3 s of silence, as long as the calling fax waits.
    cng ??= Buffer.from(Array.from(concat([tone([1100], 500, 4000), new Float32Array(3000 * 8)]), (sample) => encodeUlawSample(sample)));
    return cng;
  }
  const match = /^corpus:([a-z-]+)-(\d{2})$/.exec(clip);
  const label = answerClasses.find((name) => name === match?.[1]);
  if (!match || !label || Number(match[2]) >= CORPUS_COUNTS[label]) throw new Error(`unknown corpus clip ${clip}`);
  return Buffer.from(corpusOpening({ label, index: Number(match[2]) }).ulaw);
}
