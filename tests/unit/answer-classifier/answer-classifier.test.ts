import { describe, expect, it } from "vitest";
import { AnswerClassifier } from "@/server/voice/answer-classifier/answer-classifier";
import { answerClasses } from "@/server/voice/answer-classifier/types";
import { buildOpening, CORPUS_COUNTS, type Opening } from "@/server/simulators/answer-corpus/corpus";
import { renderScript } from "@/server/simulators/answer-corpus/render";
import { replayOpening } from "@/tests/fixtures/answer-corpus/replay";
import { createRandom } from "@/server/simulators/answer-corpus/synth";

const verdictOf = (opening: Opening, options?: { carrierAmd?: boolean }) => replayOpening(opening, options);

describe("AnswerClassifier on representative openings", () => {
  it("a person's 'Hello?' is human within a second of its end, with nothing else said before", () => {
    const opening = buildOpening("human", 0);
    const replay = verdictOf(opening, { carrierAmd: false });
    // A provisional human on the pause, then a sure one on the transcript: never another class.
    expect(new Set(replay.verdicts.map((verdict) => verdict.answerClass))).toEqual(new Set(["human"]));
    expect(replay.settledAtMs! - opening.firstUtteranceEndMs!).toBeLessThanOrEqual(1000);
  });

  it.each(["Yes, hello?", "Hey, what's up?"])("a short multi-word opening (%s) is a provisional human within 1 s of its first word, then a sure one", (text) => {
    const rendered = renderScript([{ kind: "silence", ms: 500 }, { kind: "say", text }, { kind: "silence", ms: 3000 }], {
      voice: { f0: 120, speed: 1, amplitude: 5000, formantShift: 1 },
      random: createRandom(7),
      snrDb: 30,
      lossRate: 0,
      asrLatencyMs: 400,
      tailMs: 300,
    });
    const replay = verdictOf({ ...rendered, id: "short-multi-word", label: "human", hard: null, amd: null }, { carrierAmd: false });
    expect(replay.verdicts.map((verdict) => verdict.answerClass)).toEqual(["human", "human"]);
    expect(replay.verdicts[0]).toMatchObject({ confidence: 0.55, reason: expect.stringContaining("provisional") });
    expect(replay.verdicts[0]!.atMs - rendered.firstWordEndMs!).toBeLessThanOrEqual(1000);
    // Before the transcript (which arrives 400 ms after the utterance ends), and confirmed by it.
    expect(replay.verdicts[0]!.atMs).toBeLessThan(rendered.transcript[0]!.atMs);
    expect(replay.verdicts[1]!.confidence).toBeGreaterThanOrEqual(0.9);
  });

  it.each([0, 3, 5])("voicemail #%i, whose greeting opens with a short line, is never called human, not even provisionally", (index) => {
    const opening = buildOpening("voicemail", index);
    expect(opening.transcript[0]!.text).toMatch(/^(Hi, you've reached|Hello, this is) \w+\./);
    const replay = verdictOf(opening, { carrierAmd: false });
    expect(replay.verdicts.map((verdict) => verdict.answerClass)).not.toContain("human");
    expect(replay.final?.answerClass).toBe("voicemail");
  });

  it("a person silent for 2 s gets no verdict before speaking, then human", () => {
    const opening = buildOpening("human", 2);
    expect(opening.hard).toBe("silent 2 s");
    const replay = verdictOf(opening, { carrierAmd: false });
    expect(replay.final?.answerClass).toBe("human");
    expect(replay.verdicts[0]!.atMs).toBeGreaterThan(2000);
  });

  it("a long personal greeting ('Hello, this is Dana speaking, how can I help?') is human", () => {
    const opening = buildOpening("human", 3);
    expect(opening.hard).toBe("long greeting");
    expect(verdictOf(opening, { carrierAmd: false }).verdicts.every((verdict) => verdict.answerClass === "human")).toBe(true);
  });

  it("a voicemail greeting with a beep: voicemail by the end of the beep, with the beep's end", () => {
    const opening = buildOpening("voicemail", 0);
    const replay = verdictOf(opening, { carrierAmd: false });
    expect(replay.final).toMatchObject({ answerClass: "voicemail" });
    expect(Math.abs(replay.final!.beepEndMs! - opening.beepEndMs!)).toBeLessThanOrEqual(40);
    expect(replay.settledAtMs!).toBeLessThanOrEqual(opening.beepEndMs! + 60);
  });

  it("a voicemail greeting without a beep is voicemail, with no beep time", () => {
    const opening = buildOpening("voicemail", 3);
    expect(opening.hard).toBe("no beep");
    const replay = verdictOf(opening, { carrierAmd: false });
    expect(replay.final?.answerClass).toBe("voicemail");
    expect(replay.final?.beepEndMs).toBeUndefined();
  });

  it.each([
    ["ivr", 0, "menu with music"],
    ["screener", 0, "screener (google)"],
    ["screener", 1, "screener (ios)"],
    ["screener", 3, "screener (carrier)"],
    ["fax", 0, null],
    ["fax", 2, "CNG"],
    ["intercept", 4, "intercept without SIT"],
    ["hold-queue", 1, "ringback"],
    ["hold-queue", 3, null],
  ] as const)("%s #%i (%s)", (label, index, hard) => {
    const opening = buildOpening(label, index);
    expect(opening.hard).toBe(hard);
    expect(verdictOf(opening, { carrierAmd: false }).final?.answerClass).toBe(label);
  });

  it("an intercept with SIT is known at the end of the third tone, before any words", () => {
    const opening = buildOpening("intercept", 0);
    const replay = verdictOf(opening, { carrierAmd: false });
    expect(replay.verdicts[0]).toMatchObject({ answerClass: "intercept", reason: "SIT tones" });
    expect(replay.verdicts[0]!.atMs).toBeLessThan(1500);
  });
});

describe("revisions and the carrier's AMD", () => {
  it("a screener that connects the person becomes human", () => {
    const random = createRandom(5);
    const rendered = renderScript(
      [
        { kind: "silence", ms: 400 },
        { kind: "say", text: "Hi, the person you're calling is using a screening service from Google.", pauseAfterMs: 300 },
        { kind: "say", text: "Go ahead and say your name and why you're calling." },
        { kind: "silence", ms: 3000 },
        { kind: "say", text: "Hello? Yes, this is Dana." },
        { kind: "silence", ms: 2000 },
      ],
      { voice: { f0: 200, speed: 1, amplitude: 5000, formantShift: 1.1 }, random, snrDb: 30, lossRate: 0, asrLatencyMs: 400, tailMs: 300 },
    );
    const replay = verdictOf({ ...rendered, id: "screener-then-person", label: "human", hard: null, amd: null });
    const classes = replay.verdicts.map((verdict) => verdict.answerClass);
    expect(classes).toContain("screener");
    expect(classes.at(-1)).toBe("human");
    expect(classes.indexOf("screener")).toBeLessThan(classes.lastIndexOf("human"));
  });

  it("a wrong carrier AMD does not override what was heard (a greeting and a beep stay voicemail)", () => {
    const opening = { ...buildOpening("voicemail", 0), amd: { atMs: 2000, answeredBy: "human" } };
    expect(verdictOf(opening).final?.answerClass).toBe("voicemail");
  });

  it("the carrier's AMD is a fallback, with low confidence, when nothing was heard", () => {
    const classifier = new AnswerClassifier();
    for (let frame = 0; frame < 50; frame += 1) classifier.pushFrame(new Int16Array(160));
    expect(classifier.verdict).toBeNull();
    classifier.pushCarrierAmd({ atMs: 1000, answeredBy: "machine_end_beep" });
    expect(classifier.verdict).toMatchObject({ answerClass: "voicemail", confidence: 0.6, atMs: 1000 });
  });

  it("µ-law in any chunk size gives the same verdicts as 20 ms frames", () => {
    const opening = buildOpening("voicemail", 1);
    const chunked = new AnswerClassifier();
    for (let offset = 0; offset < opening.ulaw.length; offset += 333) chunked.pushUlaw(opening.ulaw.subarray(offset, offset + 333));
    const framed = new AnswerClassifier();
    for (let offset = 0; offset + 160 <= opening.ulaw.length; offset += 160) framed.pushUlaw(opening.ulaw.subarray(offset, offset + 160));
    expect(chunked.verdicts).toEqual(framed.verdicts);
    expect(framed.verdict?.answerClass).toBe("voicemail");
  });
});

describe("the corpus", () => {
  it("has at least 300 openings and 40 per class", () => {
    const counts = answerClasses.map((label) => CORPUS_COUNTS[label]);
    expect(Math.min(...counts)).toBeGreaterThanOrEqual(40);
    expect(counts.reduce((sum, count) => sum + count, 0)).toBeGreaterThanOrEqual(300);
  });

  it("is deterministic: the same seed gives the same audio and transcript", () => {
    const first = buildOpening("screener", 7);
    const second = buildOpening("screener", 7);
    expect(Buffer.from(first.ulaw).equals(Buffer.from(second.ulaw))).toBe(true);
    expect(first.transcript).toEqual(second.transcript);
    expect(Buffer.from(buildOpening("screener", 7, 38).ulaw).equals(Buffer.from(first.ulaw))).toBe(false);
  });
});
