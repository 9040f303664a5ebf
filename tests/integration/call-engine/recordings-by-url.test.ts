import { readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { and, eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as voiceEventsRoute } from "@/app/api/voice/events/route";
import { callTranscriptLines, organizations } from "@/db/schema";
import { localRecordingPath } from "@/server/storage/recording-store";
import { serveLocalRecording } from "@/server/storage/serve-local-recording";
import { forgetRecordingOrigin, trustRecordingOrigin } from "@/server/voice/recording-origins";
import { ulawChannelsToWav } from "@/server/voice/g711";
import { readPcmWav } from "@/server/voice/pcm";
import { signVoiceEvent } from "@/server/voice/signature";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { createConversationWav, seedOf } from "@/server/voice/simulator/wav";
import { createFetchTransport } from "@/server/voice/transport";
import type { VoiceProviderEvent } from "@/server/voice/types";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { callsOf, createEngineOrganization, enroll, useCallEngines } from "./harness";

const db = useTestDb();
const start = useCallEngines(db, "recordings-by-url");
const api = apiClient(db);
const START = new Date("2026-03-02T15:00:00Z");

async function postEvent(event: Record<string, unknown>) {
  const text = JSON.stringify(event);
  return voiceEventsRoute(
    new Request("http://localhost/api/voice/events", { method: "POST", headers: { "content-type": "application/json", ...signVoiceEvent(text) }, body: text }),
  );
}

/** A recording server answering with `answer(requestNumber)`; counts the requests it got. */
function startAudioServer(answer: (request: number, res: http.ServerResponse) => void) {
  let requests = 0;
  const server = http.createServer((_req, res) => answer(++requests, res));
  const ready = new Promise<string>((resolve) => server.listen(0, "127.0.0.1", () => resolve(`http://127.0.0.1:${(server.address() as AddressInfo).port}`)));
  return { ready, requests: () => requests, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

const WAV = createConversationWav({ seconds: 3, seed: 42 });
const serveWav = (res: http.ServerResponse) => res.writeHead(200, { "content-type": "audio/wav", "content-length": String(WAV.byteLength) }).end(WAV);

/** An enrolled call dialed by the engine (the manual simulator never runs it): the test posts its end itself. */
async function dialedCall(engine: Awaited<ReturnType<typeof start>>, phoneNumber: string) {
  const { organization, apiKey, agent } = await createEngineOrganization(db);
  const created = await enroll(db, { agent, phoneNumber, now: START });
  await engine.runner.drain();
  const [call] = await callsOf(db, created.sequenceId);
  expect(call!.resultType).toBe("Calling");
  const ended = (recordingUrl: string) => ({
    type: "call.ended",
    callId: call!.id,
    providerCallId: call!.providerCallId,
    occurredAt: START.toISOString(),
    disposition: "answered",
    durationSeconds: 90,
    transcript: "Customer: Hello?\nAgent: Hi, this is Ava.\nCustomer: Not interested, thanks.",
    recording: { contentType: "audio/wav", url: recordingUrl, durationSeconds: 3 },
  });
  return { organization, apiKey, sequenceId: created.sequenceId, callId: call!.id, ended };
}

describe("recordings by URL", () => {
  it("the simulator posts a recording URL on its own host; the entry point downloads it into the store: downloaded and playable", async () => {
    const posted: VoiceProviderEvent[] = [];
    const forward = createFetchTransport({ url: "http://localhost/api/voice/events", fetch: (request) => voiceEventsRoute(request) });
    const simulator = createSimulatedVoiceEngine({
      pace: "manual",
      now: () => START,
      recordings: "url",
      transport: async (event) => {
        posted.push(event);
        return forward(event);
      },
    });
    try {
      const engine = await start({ start: START, simulator });
      const { organization, apiKey, agent } = await createEngineOrganization(db);
      const created = await enroll(db, { agent, phoneNumber: "+12025550502", now: START }); // digit 2: voicemail, recorded
      await engine.settle();

      const ended = posted.find((event) => event.type === "call.ended");
      expect(ended?.type).toBe("call.ended");
      if (ended?.type !== "call.ended") return;
      expect(ended.recording).toMatchObject({ contentType: "audio/wav", url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/recordings\/.+\.wav\?seconds=\d+&signature=/) });
      expect(ended.recording).not.toHaveProperty("contentBase64");
      expect(JSON.stringify(ended).length).toBeLessThan(4096);

      const [call] = await callsOf(db, created.sequenceId);
      expect(call!.resultType).toBe("Voicemail");
      expect(call!.recordingKey).toBe(`${organization.id}/${call!.id}.wav`);
      const expected = Buffer.from(createConversationWav({ seconds: Math.max(1, call!.duration!), seed: seedOf(call!.id) }));
      expect(readFileSync(localRecordingPath(call!.recordingKey!)).equals(expected)).toBe(true);

      const res = await api(`/recordings/${call!.id}`, { key: apiKey });
      expect(res.status).toBe(200);
      expect(res.body.recording).toMatchObject({ callId: call!.id, recordingStatus: "downloaded", url: expect.any(String) });
      const audio = await serveLocalRecording(new Request(res.body.recording.url));
      expect(audio.status).toBe(200);
      expect(Buffer.from(await audio.arrayBuffer()).equals(expected)).toBe(true);

      // The host only serves URLs it issued: another length or a forged signature is a 404, and nothing is synthesized.
      const url = new URL(ended.recording!.url!);
      url.searchParams.set("seconds", "36000");
      expect((await fetch(url)).status).toBe(404);
      expect((await fetch(ended.recording!.url!.replace(/signature=.*/, "signature=forged"))).status).toBe(404);
      expect((await fetch(ended.recording!.url!)).status).toBe(200);
    } finally {
      await simulator.close();
    }
  });

  it("voice-event answers are never compressed or cached; a transcript batch is stored once per line", async () => {
    const engine = await start({ start: START });
    const { callId, ended } = await dialedCall(engine, "+12025550511");
    const { providerCallId } = ended("");
    const lines = [
      { itemId: "turn-1", speaker: "customer", text: "Hello?", offsetMs: 0 },
      { itemId: "turn-2", speaker: "agent", text: "Hi, this is Ava.", offsetMs: 4000 },
    ];
    const batch = { type: "call.transcript.batch", callId, providerCallId, occurredAt: START.toISOString(), lines };
    const first = await postEvent(batch);
    expect(first.status).toBe(200);
    expect(first.headers.get("cache-control")).toBe("no-store, no-transform");
    expect(await first.json()).toMatchObject({ ok: true, status: "accepted" });
    expect((await postEvent({ ...batch, lines: [...lines, { itemId: "turn-3", speaker: "customer", text: "Not now.", offsetMs: 8000 }] })).status).toBe(200);
    const stored = await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, callId)).orderBy(callTranscriptLines.offsetMs);
    expect(stored.map((line) => line.text)).toEqual(["Hello?", "Hi, this is Ava.", "Not now."]);
    expect((await postEvent({ ...batch, lines: [] })).status).toBe(400);
    const refused = await postEvent({ ...ended("http://127.0.0.1:9/x.wav"), providerCallId: "sim-someone-else" });
    expect(refused.headers.get("cache-control")).toBe("no-store, no-transform");
  });

  describe("a recording whose download fails", () => {
    let attempts = 0;
    const flaky = startAudioServer((request, res) => {
      attempts = request;
      if (request === 1) res.writeHead(503).end("try later");
      else serveWav(res);
    });
    const gone = startAudioServer((_request, res) => res.writeHead(404).end("gone"));
    let flakyOrigin = "";
    let goneOrigin = "";
    beforeAll(async () => {
      flakyOrigin = await flaky.ready;
      goneOrigin = await gone.ready;
      trustRecordingOrigin(flakyOrigin);
      trustRecordingOrigin(goneOrigin);
    });
    afterAll(async () => {
      forgetRecordingOrigin(flakyOrigin);
      forgetRecordingOrigin(goneOrigin);
      await flaky.close();
      await gone.close();
    });

    it("does not hold up or lose the call: Processing Analysis with the URL, then the analysis step downloads it (a second try)", async () => {
      const engine = await start({ start: START });
      const { organization, apiKey, callId, sequenceId, ended } = await dialedCall(engine, "+12025550521");
      const url = `${flakyOrigin}/audio/${callId}.wav`;
      expect((await postEvent(ended(url))).status).toBe(200);
      expect(attempts).toBe(0); // never during the event request (issue 38)
      const [waiting] = await callsOf(db, sequenceId);
      expect(waiting).toMatchObject({ resultType: "Processing Analysis", recordingKey: url, transcript: expect.stringContaining("Ava") });
      expect((await api(`/recordings/${callId}`, { key: apiKey })).body.recording.recordingStatus).toBe("no-recording");

      await engine.runner.drain(); // the analysis
      expect(attempts).toBe(2);
      const [done] = await callsOf(db, sequenceId);
      expect(done!.resultType).toBe("No Conversation");
      expect(done!.recordingKey).toBe(`${organization.id}/${callId}.wav`);
      expect(readFileSync(localRecordingPath(done!.recordingKey!)).equals(Buffer.from(WAV))).toBe(true);
      expect((await api(`/recordings/${callId}`, { key: apiKey })).body.recording).toMatchObject({ recordingStatus: "downloaded", url: expect.any(String) });
    });

    it("a recording that cannot be fetched at all: the call still gets its result and its call/analyzed, with no-recording", async () => {
      const engine = await start({ start: START });
      const { apiKey, callId, sequenceId, ended } = await dialedCall(engine, "+12025550531");
      const url = `${goneOrigin}/audio/${callId}.wav`;
      expect((await postEvent(ended(url))).status).toBe(200);
      await engine.runner.drain();
      const [done] = await callsOf(db, sequenceId);
      expect(done!.resultType).toBe("No Conversation");
      expect(done!.recordingKey).toBe(url);
      expect(gone.requests()).toBe(2); // two tries before its analysis
      expect(engine.analyzed.map((event) => event.callId)).toEqual([callId]);
      const res = await api(`/recordings/${callId}`, { key: apiKey });
      expect(res.body.recording.recordingStatus).toBe("no-recording");
      expect(res.body.recording).not.toHaveProperty("url");
    });
  });

  describe("a slow recording host (issue 38)", () => {
    const DELAY_MS = 5000;
    // 3 s of two-channel 16-bit PCM (a real engine's recording), never silent.
    const ulaw = Uint8Array.from({ length: 24_000 }, (_, index) => index % 100);
    const PCM16 = ulawChannelsToWav([ulaw, ulaw]);
    const slow = startAudioServer((_request, res) => {
      setTimeout(() => res.writeHead(200, { "content-type": "audio/wav", "content-length": String(PCM16.byteLength) }).end(PCM16), DELAY_MS);
    });
    let slowOrigin = "";
    beforeAll(async () => {
      slowOrigin = await slow.ready;
      trustRecordingOrigin(slowOrigin);
    });
    afterAll(async () => {
      forgetRecordingOrigin(slowOrigin);
      await slow.close();
    });

    it("call.ended answers at once; the analysis downloads the recording and silences the redacted turn before call/analyzed", async () => {
      const engine = await start({ start: START });
      const { organization, apiKey, callId, sequenceId, ended } = await dialedCall(engine, "+12025550561");
      const { providerCallId } = ended("");
      // The contact reads out a card number from 1.0 s to 1.8 s of the recording: redacted (the default categories).
      const lines = [
        { itemId: "turn-1", speaker: "agent", text: "Hi, this is Ava.", offsetMs: 0, endOffsetMs: 900 },
        { itemId: "turn-2", speaker: "customer", text: "My card is 4111 1111 1111 1111.", offsetMs: 1000, endOffsetMs: 1800 },
      ];
      expect((await postEvent({ type: "call.transcript.batch", callId, providerCallId, occurredAt: START.toISOString(), lines })).status).toBe(200);
      const [line] = await db.select().from(callTranscriptLines).where(and(eq(callTranscriptLines.callId, callId), eq(callTranscriptLines.offsetMs, 1000)));
      expect(line!.redactions).toContain("card");

      const url = `${slowOrigin}/audio/${callId}.wav`;
      const startedAt = performance.now();
      const res = await postEvent(ended(url));
      const tookMs = performance.now() - startedAt;
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, status: "accepted" });
      expect(tookMs).toBeLessThan(DELAY_MS / 2);
      expect(slow.requests()).toBe(0);
      const [waiting] = await callsOf(db, sequenceId);
      expect(waiting).toMatchObject({ resultType: "Processing Analysis", recordingKey: url });
      expect(waiting!.redactedSpans).toEqual([expect.objectContaining({ startMs: 600, endMs: 2200, speaker: "customer", categories: ["card"] })]);

      await engine.runner.drain(); // the analysis: waits for the slow host, then analyses and announces
      expect(slow.requests()).toBe(1);
      const [done] = await callsOf(db, sequenceId);
      expect(done!.resultType).toBe("No Conversation");
      expect(done!.recordingKey).toBe(`${organization.id}/${callId}.wav`);
      expect(engine.analyzed.map((event) => event.callId)).toEqual([callId]);
      const stored = readFileSync(localRecordingPath(done!.recordingKey!));
      expect(stored.byteLength).toBe(PCM16.byteLength);
      // Silent over the span (both channels), the original audio elsewhere.
      const wav = readPcmWav(new Uint8Array(stored))!;
      const at = (ms: number) => wav.dataOffset + Math.floor((ms * wav.sampleRate) / 1000) * 2 * wav.channels;
      expect(stored.subarray(at(600), at(2200)).every((byte) => byte === 0)).toBe(true);
      expect(PCM16.subarray(at(600), at(2200)).some((byte) => byte !== 0)).toBe(true);
      expect(stored.subarray(0, at(600)).equals(PCM16.subarray(0, at(600)))).toBe(true);
      expect(stored.subarray(at(2200)).equals(PCM16.subarray(at(2200)))).toBe(true);
      expect((await api(`/recordings/${callId}`, { key: apiKey })).body.recording).toMatchObject({ recordingStatus: "downloaded", url: expect.any(String) });
    });
  });

  it("call.ended follows the organization's settings read with the call: no redaction categories, no recordings kept", async () => {
    const engine = await start({ start: START });
    const { organization, callId, sequenceId, ended } = await dialedCall(engine, "+12025550571");
    await db.update(organizations).set({ keepRecordings: false, redactionCategories: [] }).where(eq(organizations.id, organization.id));
    const event = ended(`http://127.0.0.1:9/audio/${callId}.wav`);
    expect((await postEvent({ ...event, transcript: "Customer: My card is 4111 1111 1111 1111." })).status).toBe(200);
    const [call] = await callsOf(db, sequenceId);
    expect(call).toMatchObject({ resultType: "Processing Analysis", recordingKey: null, transcript: "Customer: My card is 4111 1111 1111 1111." });
    expect(call!.recordingDeletedAt).toEqual(START);
  });

  describe("the download is made only to trusted origins", () => {
    const elsewhere = startAudioServer((_request, res) => serveWav(res));
    let bouncer: ReturnType<typeof startAudioServer>;
    let elsewhereOrigin = "";
    let bouncerOrigin = "";
    beforeAll(async () => {
      elsewhereOrigin = await elsewhere.ready;
      bouncer = startAudioServer((_request, res) => res.writeHead(302, { location: `${elsewhereOrigin}/audio.wav` }).end());
      bouncerOrigin = await bouncer.ready;
      trustRecordingOrigin(bouncerOrigin);
    });
    afterAll(async () => {
      forgetRecordingOrigin(bouncerOrigin);
      await elsewhere.close();
      await bouncer.close();
    });

    it("a signed event pointing at another origin, or a trusted origin redirecting there, fetches nothing from it", async () => {
      const engine = await start({ start: START });
      const first = await dialedCall(engine, "+12025550541");
      expect((await postEvent(first.ended(`${elsewhereOrigin}/internal/secrets.wav`))).status).toBe(200);
      const second = await dialedCall(engine, "+12025550551");
      expect((await postEvent(second.ended(`${bouncerOrigin}/audio.wav`))).status).toBe(200);
      await engine.runner.drain();
      expect(elsewhere.requests()).toBe(0);
      expect(bouncer.requests()).toBe(2);
      for (const { sequenceId, apiKey, callId } of [first, second]) {
        expect((await callsOf(db, sequenceId))[0]!.resultType).toBe("No Conversation");
        expect((await api(`/recordings/${callId}`, { key: apiKey })).body.recording.recordingStatus).toBe("no-recording");
      }
    });
  });
});
