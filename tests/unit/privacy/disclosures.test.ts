import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { disclosureTextProblem, disclosureTexts, objectsToRecording, planDisclosures } from "@/server/services/privacy/disclosures";
import { ALL_PARTY_CONSENT_JURISDICTIONS } from "@/server/services/privacy/recording-consent-rules";
import { redactRecording, silenceRecordingSpans } from "@/server/services/privacy/recording-redaction";
import { writeWavHeader } from "@/server/voice/g711";
import { createConversationWav } from "@/server/voice/simulator/wav";
import { ulawChannelsToWav } from "@/server/voice/g711";
import { encodeUlawSample, pcm24kToUlaw8k, readPcmWav, ulaw8kToPcm24k, ulawFrameLoudness, wavChannelEnvelope } from "@/server/voice/pcm";

const plan = (phoneNumber: string, mode: "by-state" | "always" = "by-state", call: { inbound?: boolean; keepRecordings?: boolean } = {}) =>
  planDisclosures({
    organizationName: "Acme",
    agent: { name: "Ava", identification: null, recordingNotice: null, recordingNoticeMode: mode },
    phoneNumber,
    inbound: call.inbound,
    keepRecordings: call.keepRecordings ?? true,
    consent: null,
    now: new Date("2026-11-28T12:00:00Z"),
  });

describe("disclosures", () => {
  it("the notice where the area code maps to an all-party-consent state, or always; the identification everywhere", () => {
    const california = plan("+14155550141");
    expect(california.identification.text).toBe("Hello, this is an automated AI assistant calling on behalf of Acme to follow up on your enquiry.");
    expect(california.recordingNotice).toMatchObject({ required: true, reason: "all-party-consent-state", jurisdictions: ["US-CA"] });
    expect(disclosureTexts(california).map((entry) => entry.kind)).toEqual(["identification", "recordingNotice"]);
    const texas = plan("+15125550141");
    expect(texas.recordingNotice).toMatchObject({ required: false, reason: null, jurisdictions: [], text: "" });
    expect(disclosureTexts(texas).map((entry) => entry.kind)).toEqual(["identification"]);
    expect(plan("+15125550141", "always").recordingNotice).toMatchObject({ required: true, reason: "agent-always" });
    expect(plan("+442079460958").recordingNotice.required).toBe(false);
  });

  it("tells of a recording only where one is made: a callback, or an organization keeping none, hears of the transcript alone", () => {
    const recorded = plan("+14155550141");
    expect(recorded.recording.state).toBe("on");
    expect(recorded.recordingNotice.text).toBe("This call is recorded and transcribed. If you would rather it was not recorded, just say so.");
    for (const call of [{ inbound: true }, { keepRecordings: false }, { inbound: true, keepRecordings: false }]) {
      const planned = plan("+14155550141", "by-state", call);
      expect(planned.recording.state, JSON.stringify(call)).toBe("not-recorded");
      expect(planned.recordingNotice).toMatchObject({ required: true, reason: "all-party-consent-state", text: "This call is transcribed; its audio is not recorded." });
    }
    expect(plan("+14155550141", "by-state", { inbound: true }).identification.text).toBe("Hello, you have reached an automated AI assistant of Acme.");
    // The agent's own notice is said as written.
    const own = planDisclosures({ organizationName: "Acme", agent: { name: "Ava", identification: null, recordingNotice: "{agent} keeps notes of this call.", recordingNoticeMode: "always" }, phoneNumber: "+15125550141", inbound: true, keepRecordings: true, consent: null, now: new Date() });
    expect(own.recordingNotice.text).toBe("Ava keeps notes of this call.");
  });

  it("refuses unknown placeholders and long texts", () => {
    expect(disclosureTextProblem("Calling for {organization}, I am {agent}.")).toBeNull();
    expect(disclosureTextProblem("Hi {contact}")).toMatch(/unknown placeholder \{contact\}/);
    expect(disclosureTextProblem("x".repeat(501))).toMatch(/at most 500/);
  });

  it("hears an objection to the recording", () => {
    for (const text of ["Please don't record this call.", "Stop recording, please.", "I do not consent to being recorded", "can you turn off the recording"]) expect(objectsToRecording(text), text).toBe(true);
    for (const text of ["Sure, go ahead.", "I recorded a podcast yesterday", "Please book it for Thursday."]) expect(objectsToRecording(text), text).toBe(false);
  });

  it("docs/compliance.md lists the all-party-consent jurisdictions the code applies", () => {
    const doc = readFileSync("docs/compliance.md", "utf8");
    const table = doc.slice(doc.indexOf("<!-- recording-consent-table:start -->"), doc.indexOf("<!-- recording-consent-table:end -->"));
    const rows = [...table.matchAll(/^\| (US-[A-Z]{2}) \| ([^|]+) \| ([^|]+) \|$/gm)].map((match) => ({ code: match[1], name: match[2]!.trim(), source: match[3]!.trim() }));
    expect(rows).toEqual(ALL_PARTY_CONSENT_JURISDICTIONS);
  });
});

describe("recording redaction", () => {
  it("TTS audio round-trips: 8 kHz µ-law → 24 kHz PCM → 8 kHz µ-law is the same bytes", () => {
    const ulaw = Buffer.from(Array.from({ length: 800 }, (_, i) => encodeUlawSample(8000 * Math.sin(i / 3))));
    expect(pcm24kToUlaw8k(ulaw8kToPcm24k(ulaw)).equals(ulaw)).toBe(true);
  });

  it("aligns the stream's clock on the recording's callee channel and silences the redacted turns on both channels", () => {
    // A recording whose callee speaks in bursts; the media stream started 1.5 s after the answer (its clock 0 there).
    const speech = (ms: number) => Buffer.from(Array.from({ length: ms * 8 }, (_, i) => encodeUlawSample(9000 * Math.sin(i / 2))));
    const silence = (ms: number) => Buffer.alloc(ms * 8, 0xff);
    const callee = Buffer.concat([silence(1500), speech(1000), silence(1200), speech(700), silence(2000), speech(3000), silence(1500), speech(800), silence(600)]);
    const agent = Buffer.concat([silence(3000), speech(callee.length / 8 - 3000)]);
    const wav = ulawChannelsToWav([callee, agent]);
    const stream = callee.subarray(1500 * 8);
    const envelope = Uint8Array.from({ length: Math.floor(stream.length / 160) }, (_, i) => ulawFrameLoudness(stream.subarray(i * 160, i * 160 + 160)));
    // The redacted turn, on the stream's clock: 4,900–7,900 ms (the 3-second burst).
    const result = redactRecording({
      wav,
      lines: [
        { speaker: "customer", offsetMs: 0, endOffsetMs: 1000, redactions: [] },
        { speaker: "customer", offsetMs: 4900, endOffsetMs: 7900, redactions: ["card"] },
      ],
      envelope: { bytes: envelope, startMs: 0 },
      fallbackOffsetMs: 0,
    });
    expect(result.status).toBe("redacted");
    if (result.status !== "redacted") return;
    expect(result.aligned).toBe(true);
    expect(result.spans).toEqual([{ startMs: 6000, endMs: 9800, speaker: "customer", categories: ["card"] }]);
    const out = readPcmWav(result.wav)!;
    const sample = (ms: number, channel: number) => out.buffer.readInt16LE(out.dataOffset + (ms * 8 * out.channels + channel) * 2);
    for (const ms of [6500, 8000, 9500]) expect([sample(ms, 0), sample(ms, 1)]).toEqual([0, 0]);
    expect(Math.abs(sample(1600, 0)) + Math.abs(sample(1601, 0))).toBeGreaterThan(0);
    expect(Math.abs(sample(10_500, 1)) + Math.abs(sample(10_501, 1))).toBeGreaterThan(0);
  });

  it("silences spans in the simulator's 8-bit recordings and in µ-law WAVs, in their own encoding; other layouts are refused", () => {
    const span = { startMs: 1000, endMs: 2000, speaker: "customer" as const, categories: ["card"] };
    // The simulator's recording: 8-bit unsigned PCM, speech in every turn (server/voice/simulator/wav.ts).
    const simulated = createConversationWav({ seconds: 4, seed: 7, turns: 1 });
    const pcm8 = silenceRecordingSpans(simulated, [span]);
    expect(pcm8).not.toBeNull();
    const edited = Buffer.from(pcm8!);
    expect(edited.subarray(44 + 8000, 44 + 16000).every((byte) => byte === 0x80)).toBe(true);
    expect(edited.subarray(44 + 200, 44 + 8000).equals(Buffer.from(simulated).subarray(44 + 200, 44 + 8000))).toBe(true);
    expect(edited.subarray(44 + 200, 44 + 8000).some((byte) => byte !== 0x80)).toBe(true);
    expect(readPcmWav(simulated)!.encoding).toBe("pcm8");

    // G.711 µ-law in a WAV (format tag 7): silence is 0xFF.
    const ulaw = Buffer.from(Array.from({ length: 8000 * 3 }, (_, i) => encodeUlawSample(9000 * Math.sin(i / 2))));
    const ulawWav = Buffer.alloc(44 + ulaw.length);
    writeWavHeader(ulawWav, { dataBytes: ulaw.length, channels: 1, sampleRate: 8000, bitsPerSample: 8 });
    ulawWav.writeUInt16LE(7, 20);
    ulaw.copy(ulawWav, 44);
    const silencedUlaw = Buffer.from(silenceRecordingSpans(ulawWav, [span])!);
    expect(silencedUlaw.subarray(44 + 8000, 44 + 16000).every((byte) => byte === 0xff)).toBe(true);
    expect(silencedUlaw.subarray(44 + 16000).equals(ulaw.subarray(16000))).toBe(true);
    expect(wavChannelEnvelope(readPcmWav(ulawWav)!, 0).every((loudness) => loudness > 0)).toBe(true);

    // 8-bit A-law (format tag 6) and 24-bit PCM cannot be edited here: null, so the recording is not kept.
    const alaw = Buffer.from(ulawWav);
    alaw.writeUInt16LE(6, 20);
    expect(silenceRecordingSpans(alaw, [span])).toBeNull();
    const pcm24 = Buffer.from(ulawWav);
    pcm24.writeUInt16LE(1, 20);
    pcm24.writeUInt16LE(24, 34);
    expect(silenceRecordingSpans(pcm24, [span])).toBeNull();
  });
});
