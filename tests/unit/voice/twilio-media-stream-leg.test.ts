import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { TwilioMediaStreamLeg } from "@/server/carriers/twilio/media-stream-leg";
import type { CallerFrame, MediaLegStart } from "@/server/voice/conversation/media-leg";

/** A real WebSocket pair: the test is Twilio (client side), the leg wraps our server side. */
async function streamPair() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const accepted = new Promise<WebSocket>((resolve) => wss.once("connection", (ws) => resolve(ws)));
  const twilio = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const fromUs: Array<Record<string, unknown>> = [];
  twilio.on("message", (data: Buffer) => fromUs.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise((resolve) => twilio.once("open", resolve));
  const leg = new TwilioMediaStreamLeg(await accepted);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => twilio.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  return { wss, twilio, leg, fromUs, closed, send: (message: object) => twilio.send(JSON.stringify(message)) };
}

const until = async (check: () => boolean) => {
  const deadline = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const wss of servers.splice(0)) {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
});

const START = {
  event: "start",
  sequenceNumber: "1",
  start: {
    accountSid: "AC1",
    streamSid: "MZ123",
    callSid: "CA456",
    tracks: ["inbound"],
    mediaFormat: { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 1 },
    customParameters: { token: "tok", resume: "digits:12" },
  },
  streamSid: "MZ123",
};

describe("Twilio Media Streams as a media leg", () => {
  it("reads start, media (base64 µ-law and its timestamp), marks and keys; ignores connected, media before start, bad JSON and odd keys", async () => {
    const pair = await streamPair();
    servers.push(pair.wss);
    const starts: MediaLegStart[] = [];
    const frames: CallerFrame[] = [];
    const marks: string[] = [];
    const digits: string[] = [];
    pair.leg.on("start", (start) => starts.push(start));
    pair.leg.on("audio", (frame) => frames.push(frame));
    pair.leg.on("mark", (name) => marks.push(name));
    pair.leg.on("dtmf", (digit) => digits.push(digit));
    const audio = Buffer.from(Array.from({ length: 160 }, (_, i) => i));
    pair.send({ event: "connected", protocol: "Call", version: "1.0.0" });
    pair.send({ event: "media", media: { payload: audio.toString("base64"), timestamp: "0" } });
    pair.twilio.send("not json");
    pair.send(START);
    pair.send({ event: "media", sequenceNumber: "2", media: { track: "inbound", chunk: "1", timestamp: "5", payload: audio.toString("base64") }, streamSid: "MZ123" });
    pair.send({ event: "media", media: { payload: audio.subarray(0, 80).toString("base64") } });
    pair.send({ event: "mark", sequenceNumber: "3", streamSid: "MZ123", mark: { name: "item_1:20:g1:m1" } });
    pair.send({ event: "dtmf", streamSid: "MZ123", dtmf: { track: "inbound_track", digit: "7" } });
    pair.send({ event: "dtmf", streamSid: "MZ123", dtmf: { digit: "x" } });
    pair.send({ event: "dtmf", streamSid: "MZ123", dtmf: { digit: "#" } });
    await until(() => digits.length >= 2);
    expect(starts).toEqual([{ streamId: "MZ123", carrierCallId: "CA456", parameters: { token: "tok", resume: "digits:12" }, continuousClock: true }]);
    expect(pair.leg.started).toEqual(starts[0]);
    expect(frames).toEqual([
      { audio, timestampMs: 5 },
      { audio: audio.subarray(0, 80), timestampMs: null },
    ]);
    expect(marks).toEqual(["item_1:20:g1:m1"]);
    expect(digits).toEqual(["7", "#"]);
  });

  it("says the clock is not continuous for a stream that is not 8 kHz µ-law mono", async () => {
    for (const mediaFormat of [{ encoding: "audio/x-l16", sampleRate: 8000, channels: 1 }, { encoding: "audio/x-mulaw", sampleRate: 16000, channels: 1 }, { encoding: "audio/x-mulaw", sampleRate: 8000, channels: 2 }, undefined]) {
      const pair = await streamPair();
      servers.push(pair.wss);
      pair.send({ ...START, start: { ...START.start, mediaFormat } });
      await until(() => pair.leg.started !== null);
      expect(pair.leg.started?.continuousClock, JSON.stringify(mediaFormat)).toBe(false);
    }
  });

  it("writes media, mark and clear in Twilio's JSON, on the stream's SID", async () => {
    const pair = await streamPair();
    servers.push(pair.wss);
    pair.send(START);
    await until(() => pair.leg.started !== null);
    const whole = Buffer.from(Array.from({ length: 400 }, (_, i) => i % 256));
    // A view on a larger buffer: only its own bytes are sent.
    pair.leg.sendAudio(whole.subarray(100, 260));
    pair.leg.mark("item_1:20:g1:m1");
    pair.leg.clear();
    await until(() => pair.fromUs.length >= 3);
    expect(pair.fromUs).toEqual([
      { event: "media", streamSid: "MZ123", media: { payload: whole.subarray(100, 260).toString("base64") } },
      { event: "mark", streamSid: "MZ123", mark: { name: "item_1:20:g1:m1" } },
      { event: "clear", streamSid: "MZ123" },
    ]);
  });

  it("stops once when the socket closes, and is then no longer open; a refused leg closes with 1008 and the reason", async () => {
    const pair = await streamPair();
    servers.push(pair.wss);
    pair.send(START);
    await until(() => pair.leg.started !== null);
    let stops = 0;
    pair.leg.on("stop", () => (stops += 1));
    expect(pair.leg.open).toBe(true);
    pair.leg.close({ reason: "unknown call" });
    expect(await pair.closed).toEqual({ code: 1008, reason: "unknown call" });
    await until(() => stops > 0);
    expect(pair.leg.open).toBe(false);
    pair.leg.sendAudio(Buffer.alloc(160));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stops).toBe(1);
    expect(pair.fromUs).toEqual([]);
  });

  it("an abrupt close drops the connection (no close frame)", async () => {
    const pair = await streamPair();
    servers.push(pair.wss);
    pair.leg.close({ abrupt: true });
    expect((await pair.closed).code).toBe(1006);
  });
});
