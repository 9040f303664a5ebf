import { CALLEE_SCENARIOS, type CalleeScenario } from "../voice-script";
import { seededRandom } from "@/server/voice/simulator/wav";

/**
 * How often people pick up calls from a given caller ID (tests of number health: a number flagged as spam is answered
 * less). For a caller ID with a rate set, each call placed from it (REST `Calls.json`) draws from a seeded generator:
 * under the rate the callee behaves as its number says (last digit, `setCallee`); otherwise a callee who would have
 * picked up (a person, a phone menu) lets it ring — `no-answer` after the call's `Timeout`, or its voicemail answers
 * when the rate was set with `unanswered: "voicemail"`. Busy lines, failures, invalid numbers and answering machines
 * are what they are whoever calls. The draws are deterministic: the same seed gives the same sequence, so N calls
 * give the same number answered on every run (which call gets which draw follows the order the calls are placed).
 */

export type AnswerRateOptions = {
  /** Seeds the draws (default: derived from the caller ID, so each number has its own fixed sequence). */
  seed?: number;
  /** What a call nobody picks up becomes (default `no-answer`). */
  unanswered?: "no-answer" | "voicemail";
};

type AnswerRate = { rate: number; unanswered: "no-answer" | "voicemail"; next: () => number };


/** FNV-1a of the caller ID: the default seed. */
function seedOf(text: string): number {
  let hash = 0x811c9dc5;
  for (const char of text) hash = Math.imul(hash ^ char.charCodeAt(0), 0x01000193) >>> 0;
  return hash;
}

export class AnswerRates {
  private readonly rates = new Map<string, AnswerRate>();

  /** Sets (or, with null, removes) the answer rate of calls from `fromNumber`; setting it again restarts its draws. */
  set(fromNumber: string, rate: number | null, options: AnswerRateOptions = {}): void {
    if (rate === null) {
      this.rates.delete(fromNumber);
      return;
    }
    if (!Number.isFinite(rate) || rate < 0 || rate > 1) throw new Error(`An answer rate is between 0 and 1, not ${rate}`);
    this.rates.set(fromNumber, { rate, unanswered: options.unanswered ?? "no-answer", next: seededRandom(options.seed ?? seedOf(fromNumber)) });
  }

  /** The callee of one call placed from `fromNumber`, whose number alone would give `scenario`. */
  scenarioFor(fromNumber: string, scenario: CalleeScenario): CalleeScenario {
    const entry = this.rates.get(fromNumber);
    if (!entry) return scenario;
    const picksUp = entry.next() < entry.rate;
    if (picksUp || (scenario.kind !== "human" && scenario.kind !== "menu")) return scenario;
    return entry.unanswered === "voicemail" ? CALLEE_SCENARIOS[2]! : { kind: "no-answer" };
  }
}
