import { describe, expect, it } from "vitest";
import { CadenceTracker } from "@/server/voice/answer-classifier/cadence";
import { analyseFrame, toneShare } from "@/server/voice/answer-classifier/frame-features";
import { scorePhrases, strongestMachineClass } from "@/server/voice/answer-classifier/phrases";
import { ToneTracker } from "@/server/voice/answer-classifier/tone-tracker";
import { createRandom, music, synthesizeWord, tone } from "@/server/simulators/answer-corpus/synth";

const frames = (signal: Float32Array) => Array.from({ length: Math.floor(signal.length / 160) }, (_, index) => signal.subarray(index * 160, index * 160 + 160));
const silence = (ms: number) => new Float32Array(ms * 8);
const join = (...parts: Float32Array[]) => {
  const out = new Float32Array(parts.reduce((sum, part) => sum + part.length, 0));
  parts.reduce((offset, part) => (out.set(part, offset), offset + part.length), 0);
  return out;
};
const runTones = (signal: Float32Array) => {
  const tracker = new ToneTracker();
  frames(signal).forEach((frame, index) => tracker.push(analyseFrame(frame), index * 20));
  return tracker;
};

describe("Goertzel tone share", () => {
  it("is ≈ 1 for a sine on the filter's frequency and small off it", () => {
    const beep = tone([1000], 20, 4000);
    expect(toneShare(beep.subarray(40, 160), 1000)).toBeGreaterThan(0.85);
    expect(toneShare(beep.subarray(40, 160), 1400)).toBeLessThan(0.05);
  });

  it("finds a voice's energy spread out (no single tone holds most of it)", () => {
    const word = synthesizeWord("hello", { f0: 120, speed: 1, amplitude: 5000, formantShift: 1 }, createRandom(1));
    const voiced = frames(word).map(analyseFrame).filter((frame) => frame.rms > 1000);
    expect(voiced.length).toBeGreaterThan(5);
    expect(Math.max(...voiced.map((frame) => frame.toneFraction))).toBeLessThan(0.6);
  });
});

describe("ToneTracker", () => {
  it("names a voicemail beep with its start and end", () => {
    const tracker = runTones(join(silence(200), tone([1000], 500, 5000), silence(200)));
    expect(tracker.runs).toHaveLength(1);
    expect(tracker.runs[0]).toMatchObject({ kind: "beep", hz: 1000 });
    expect(Math.abs(tracker.runs[0]!.endMs - 700)).toBeLessThanOrEqual(20);
  });

  it("recognises the three rising SIT segments, and not one alone", () => {
    const sit = runTones(join(silence(100), tone([913.8], 274, 4000), tone([1370.6], 274, 4000), tone([1776.7], 380, 4000), silence(200)));
    expect(sit.runs.map((run) => run.kind)).toEqual(["sit", "sit", "sit"]);
    expect(sit.hasSit()).toBe(true);
    expect(runTones(join(silence(100), tone([1370.6], 274, 4000), silence(200))).hasSit()).toBe(false);
  });

  it("tells a fax's CED and CNG, ringback, and a 1400 Hz beep apart from SIT", () => {
    expect(runTones(join(tone([2100], 3000, 4000), silence(100))).runs[0]?.kind).toBe("ced");
    expect(runTones(join(silence(100), tone([1100], 500, 4000), silence(300))).runs[0]?.kind).toBe("cng");
    expect(runTones(join(tone([440, 480], 2000, 1800), silence(200))).runs[0]?.kind).toBe("ringback");
    expect(runTones(join(silence(100), tone([1400], 400, 4000), silence(200))).runs[0]?.kind).toBe("beep");
  });
});

describe("CadenceTracker", () => {
  it("splits speech into utterances on pauses and measures the silence after", () => {
    const random = createRandom(2);
    const voice = { f0: 200, speed: 1, amplitude: 5000, formantShift: 1.1 };
    const signal = join(silence(300), synthesizeWord("hello", voice, random), silence(1000), synthesizeWord("hello", voice, random), silence(800));
    const cadence = new CadenceTracker();
    frames(signal).forEach((frame, index) => cadence.push(analyseFrame(frame), index * 20, false));
    expect(cadence.utterances).toHaveLength(2);
    expect(cadence.firstSpeechMs).toBeGreaterThanOrEqual(280);
    expect(cadence.firstSpeechMs).toBeLessThanOrEqual(360);
    expect(cadence.silenceMs).toBeGreaterThanOrEqual(700);
    expect(cadence.musicHeard).toBe(false);
  });

  it("hears music as unbroken sound, unlike speech", () => {
    const cadence = new CadenceTracker();
    frames(join(silence(200), music(3000, 3000, createRandom(3)))).forEach((frame, index) => cadence.push(analyseFrame(frame), index * 20, false));
    expect(cadence.musicHeard).toBe(true);
  });
});

describe("phrases", () => {
  it.each([
    ["Hi, you've reached Dana. Please leave a message after the tone.", "voicemail"],
    ["Thank you for calling Acme Dental. For billing, press 2.", "ivr"],
    ["Hi, the person you're calling is using a screening service from Google. Go ahead and say your name and why you're calling.", "screener"],
    ["Hi, if you record your name and reason for calling, I'll see if this person is available.", "screener"],
    ["We're sorry, the number you have dialed is not in service.", "intercept"],
    ["Your call is important to us. Please stay on the line.", "hold-queue"],
  ])("%s → %s", (text, expected) => {
    expect(strongestMachineClass(scorePhrases(text))?.answerClass).toBe(expected);
  });

  it("scores how people answer as human only", () => {
    for (const text of ["Hello?", "Hello, this is Dana speaking, how can I help?", "Yeah, who's this?"]) {
      const scores = scorePhrases(text);
      expect(scores.human).toBeGreaterThan(0);
      expect(strongestMachineClass(scores)).toBeNull();
    }
  });
});
