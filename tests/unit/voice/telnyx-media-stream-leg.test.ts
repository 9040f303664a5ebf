import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import WebSocket, { WebSocketServer } from "ws";
import { TelnyxMediaStreamLeg, decodeStreamClientState, encodeStreamClientState } from "@/server/carriers/telnyx/media-stream-leg";
import type { CallerFrame, MediaLeg, MediaLegStart } from "@/server/voice/conversation/media-leg";

/** A real WebSocket pair: the test is Telnyx (client side of our `stream_url`), the leg wraps our server side. */
async function streamPair() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const accepted = new Promise<WebSocket>((resolve) => wss.once("connection", (ws) => resolve(ws)));
  const telnyx = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  const fromUs: Array<Record<string, unknown>> = [];
  telnyx.on("message", (data: Buffer) => fromUs.push(JSON.parse(data.toString()) as Record<string, unknown>));
  await new Promise((resolve) => telnyx.once("open", resolve));
  const leg = new TelnyxMediaStreamLeg(await accepted);
  const closed = new Promise<{ code: number; reason: string }>((resolve) => telnyx.once("close", (code, reason) => resolve({ code, reason: reason.toString() })));
  return { wss, telnyx, leg, fromUs, closed, send: (message: object) => telnyx.send(JSON.stringify(message)) };
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

const CLIENT_STATE = encodeStreamClientState({ token: "tok", resume: "digits:12" });
const START = {
  event: "start",
  sequence_number: "1",
  stream_id: "32DE0DEA-53CB-4B21-89A4-9E1819C043BC",
  start: {
    user_id: "3E6F995F-85F7-4705-9741-53B116D28237",
    call_control_id: "v3:call-456",
    client_state: CLIENT_STATE,
    media_format: { encoding: "PCMU", sample_rate: 8000, channels: 1 },
  },
};

describe("Telnyx media streaming as a media leg", () => {
  it("client_state carries our parameters as base64 of a query string; anything else decodes to none", () => {
    expect(Buffer.from(CLIENT_STATE, "base64").toString()).toBe("token=tok&resume=digits%3A12");
    expect(decodeStreamClientState(CLIENT_STATE)).toEqual({ token: "tok", resume: "digits:12" });
    expect(decodeStreamClientState(encodeStreamClientState({ token: "a+b/c=d&e" }))).toEqual({ token: "a+b/c=d&e" });
    expect(decodeStreamClientState(null)).toEqual({});
    expect(decodeStreamClientState("not base64!")).toEqual({});
  });

  it("reads start, the inbound track's media (base64 µ-law and its timestamp), marks and keys; ignores connected, outbound media, media before start, bad JSON, errors and odd keys", async () => {
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
    const played = Buffer.alloc(160, 0x22);
    pair.send({ event: "connected", version: "1.0.0" });
    pair.send({ event: "media", stream_id: START.stream_id, media: { track: "inbound", chunk: "1", timestamp: "0", payload: audio.toString("base64") } });
    pair.telnyx.send("not json");
    pair.send(START);
    pair.send({ event: "media", sequence_number: "2", stream_id: START.stream_id, media: { track: "inbound", chunk: "1", timestamp: "20", payload: audio.toString("base64") } });
    pair.send({ event: "media", sequence_number: "3", stream_id: START.stream_id, media: { track: "outbound", chunk: "1", timestamp: "20", payload: played.toString("base64") } });
    pair.send({ event: "media", sequence_number: "4", stream_id: START.stream_id, media: { track: "inbound", chunk: "2", payload: audio.subarray(0, 80).toString("base64") } });
    pair.send({ event: "error", sequence_number: "5", stream_id: START.stream_id, payload: { code: 100004, title: "invalid_media", detail: "…" } });
    pair.send({ event: "mark", sequence_number: "6", stream_id: START.stream_id, mark: { name: "item_1:20:g1:m1" } });
    pair.send({ event: "dtmf", sequence_number: "7", stream_id: START.stream_id, occurred_at: new Date().toISOString(), dtmf: { digit: "7" } });
    pair.send({ event: "dtmf", stream_id: START.stream_id, dtmf: { digit: "x" } });
    pair.send({ event: "dtmf", stream_id: START.stream_id, dtmf: { digit: "#" } });
    await until(() => digits.length >= 2);
    expect(starts).toEqual([{ streamId: START.stream_id, carrierCallId: "v3:call-456", parameters: { token: "tok", resume: "digits:12" }, continuousClock: false }]);
    expect(pair.leg.started).toEqual(starts[0]);
    expect(frames).toEqual([
      { audio, timestampMs: 20 },
      { audio: audio.subarray(0, 80), timestampMs: null },
    ]);
    expect(marks).toEqual(["item_1:20:g1:m1"]);
    expect(digits).toEqual(["7", "#"]);
    expect(pair.leg.open).toBe(true);
  });

  it("a start without client_state (or not ours) has no parameters, so the token check refuses it", async () => {
    for (const client_state of [null, "%%%"]) {
      const pair = await streamPair();
      servers.push(pair.wss);
      pair.send({ ...START, start: { ...START.start, client_state } });
      await until(() => pair.leg.started !== null);
      expect(pair.leg.started?.parameters).toEqual({});
    }
  });

  it("refuses a stream that is not PCMU at 8 kHz mono: closed with 1008 and the reason, no start, then stopped", async () => {
    for (const media_format of [{ encoding: "PCMA", sample_rate: 8000, channels: 1 }, { encoding: "PCMU", sample_rate: 16000, channels: 1 }, { encoding: "PCMU", sample_rate: 8000, channels: 2 }, { encoding: "L16", sample_rate: 16000, channels: 1 }, undefined]) {
      const pair = await streamPair();
      servers.push(pair.wss);
      let starts = 0;
      let stops = 0;
      pair.leg.on("start", () => (starts += 1));
      pair.leg.on("stop", () => (stops += 1));
      pair.send({ ...START, start: { ...START.start, media_format } });
      const closed = await pair.closed;
      expect(closed.code, JSON.stringify(media_format)).toBe(1008);
      expect(closed.reason).toMatch(/^unsupported media format .*: PCMU\/8000\/1 only$/);
      await until(() => stops > 0);
      expect(starts).toBe(0);
      expect(pair.leg.started).toBeNull();
    }
  });

  it("writes media, mark and clear in Telnyx's JSON", async () => {
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
      { event: "media", media: { payload: whole.subarray(100, 260).toString("base64") } },
      { event: "mark", mark: { name: "item_1:20:g1:m1" } },
      { event: "clear" },
    ]);
    // Telnyx takes no keys on its media stream: Call Control `send_dtmf` plays them.
    const port: MediaLeg = pair.leg;
    expect(port.sendDigits).toBeUndefined();
  });

  it("Telnyx's stop frame stops the leg once and we close the socket; nothing is sent after", async () => {
    const pair = await streamPair();
    servers.push(pair.wss);
    pair.send(START);
    await until(() => pair.leg.started !== null);
    let stops = 0;
    pair.leg.on("stop", () => (stops += 1));
    pair.send({ event: "stop", sequence_number: "2", stream_id: START.stream_id, stop: { user_id: START.start.user_id, call_control_id: "v3:call-456" } });
    await until(() => stops > 0);
    expect(pair.leg.open).toBe(false);
    pair.leg.sendAudio(Buffer.alloc(160));
    expect((await pair.closed).code).toBe(1005);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stops).toBe(1);
    expect(pair.fromUs).toEqual([]);
  });

  it("stops once when the socket closes; a refused leg closes with 1008 and the reason", async () => {
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
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(stops).toBe(1);
  });

  it("an abrupt close drops the connection (no close frame)", async () => {
    const pair = await streamPair();
    servers.push(pair.wss);
    pair.leg.close({ abrupt: true });
    expect((await pair.closed).code).toBe(1006);
  });
});
