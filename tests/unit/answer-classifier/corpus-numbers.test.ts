import { describe, expect, it } from "vitest";
import { buildOpening, CORPUS_COUNTS } from "@/server/simulators/answer-corpus/corpus";
import { CORPUS_SEED, corpusClipAudio, corpusItemForNumber, corpusNumber, corpusOpening } from "@/server/simulators/answer-corpus/numbers";
import { calleeScenarioFor, CALLEE_SCENARIOS } from "@/server/simulators/voice-script";
import { answerClasses } from "@/server/voice/answer-classifier/types";

/**
 * The answer corpus by phone number (server/simulators/answer-corpus/numbers.ts): `+1 NPA 555-3CII` is item II of
 * class C (1 human … 7 hold-queue), the bench's bytes; other numbers keep their last digit's scenario.
 */
describe("answer corpus numbers", () => {
  it("reads class and index from 555-3CII, writes them back, and refuses an index past the class's count", () => {
    expect(corpusItemForNumber("+14155553302")).toEqual({ label: "ivr", index: 2, id: "ivr-02" });
    expect(corpusItemForNumber("+12125553744")).toBe("out-of-range");
    expect(corpusItemForNumber("+12125553743")).toEqual({ label: "hold-queue", index: 43, id: "hold-queue-43" });
    for (const label of answerClasses) expect(corpusItemForNumber(corpusNumber(label, CORPUS_COUNTS[label] - 1))).toMatchObject({ label, index: CORPUS_COUNTS[label] - 1 });
    expect(() => corpusNumber("fax", CORPUS_COUNTS.fax)).toThrow(/fax has openings 0 to 41/);
    // Not corpus numbers: 555-30XX, 555-38XX, 555-39XX, the fictional 555-01XX, other exchanges, other countries.
    for (const number of ["+14155553002", "+14155553802", "+14155553902", "+14155550132", "+14155563302", "+442079463302"]) expect(corpusItemForNumber(number)).toBeNull();
  });

  it("dialled, an item is a corpus callee; an index past the count is an invalid number; other numbers are unchanged", () => {
    expect(calleeScenarioFor("+14155553302")).toMatchObject({ kind: "corpus", item: { id: "ivr-02" }, callee: { kind: "menu", prompt: "corpus:ivr-02" } });
    expect(calleeScenarioFor("+14155553640")).toMatchObject({ kind: "corpus", callee: { kind: "machine", hangsUpAfterLastLine: true } });
    expect(calleeScenarioFor("+14155553199")).toEqual({ kind: "invalid-number" });
    expect(calleeScenarioFor("+14155553003")).toEqual(CALLEE_SCENARIOS[3]);
    expect(calleeScenarioFor("+14155550140")).toEqual(CALLEE_SCENARIOS[0]);
  });

  it("plays the bench's bytes for the item (seed 37), rendered once and kept among the last few", () => {
    const opening = corpusOpening({ label: "screener", index: 4 });
    expect(CORPUS_SEED).toBe(37);
    expect(Buffer.from(opening.ulaw).equals(Buffer.from(buildOpening("screener", 4, 37).ulaw))).toBe(true);
    expect(corpusOpening({ label: "screener", index: 4 })).toBe(opening);
    expect(corpusClipAudio("corpus:screener-04").equals(Buffer.from(opening.ulaw))).toBe(true);
    for (let index = 0; index < 4; index += 1) corpusOpening({ label: "human", index });
    expect(corpusOpening({ label: "screener", index: 4 })).not.toBe(opening);
    // CNG: 0.5 s of tone, 3 s of silence.
    expect(corpusClipAudio("corpus:cng").length).toBe(3500 * 8);
    expect(() => corpusClipAudio("corpus:fax-42")).toThrow(/unknown corpus clip/);
  });
});
