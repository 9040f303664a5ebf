import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { TelnyxMediaStreamLeg, encodeStreamClientState } from "@/server/carriers/telnyx/media-stream-leg";
import { MediaStream } from "@/server/simulators/telnyx/media-stream";
import type { CallerFrame, MediaLegStart } from "@/server/voice/conversation/media-leg";
import { ULAW_SILENCE } from "@/server/voice/g711";
import { waitFor } from "./harness";

/**
 * Our Telnyx media leg against the Telnyx simulator's own media stream: the simulator is the WebSocket client of the
 * `stream_url` this test serves, the leg wraps the accepted socket. The test plays the call's clock by hand (one
 * `sendMedia` / `playFrame` per 20 ms), so what is checked is the protocol between the two, not timing.
 */
const STREAM_URL = "wss://app.example.test/media";

const servers: WebSocketServer[] = [];
afterEach(async () => {
  for (const wss of servers.splice(0)) {
    for (const client of wss.clients) client.terminate();
    await new Promise<void>((resolve) => wss.close(() => resolve()));
  }
});

async function simulatedStream(options: { clientState?: string | null; track?: "inbound_track" | "both_tracks" } = {}) {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  servers.push(wss);
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const port = (wss.address() as AddressInfo).port;
  const accepted = new Promise<WebSocket>((resolve) => wss.once("connection", (ws) => resolve(ws)));
  const stream = new MediaStream({
    url: STREAM_URL,
    track: options.track ?? "both_tracks",
    bidirectionalMode: "rtp",
    callControlId: "v3:sim-call",
    clientState: options.clientState === undefined ? encodeStreamClientState({ token: "tok-1" }) : options.clientState,
    userId: "user-1",
    resolvePublicUrl: (url) => url.replace(STREAM_URL, `ws://127.0.0.1:${port}/media`),
  });
  const leg = new TelnyxMediaStreamLeg(await Promise.all([accepted, stream.open()]).then(([ws, opened]) => {
    expect(opened).toBe(true);
    return ws;
  }));
  const seen = { starts: [] as MediaLegStart[], frames: [] as CallerFrame[], marks: [] as string[], digits: [] as string[], stops: 0 };
  leg.on("start", (start) => seen.starts.push(start));
  leg.on("audio", (frame) => seen.frames.push(frame));
  leg.on("mark", (name) => seen.marks.push(name));
  leg.on("dtmf", (digit) => seen.digits.push(digit));
  leg.on("stop", () => (seen.stops += 1));
  return { stream, leg, seen };
}

const voice = (n: number) => Buffer.alloc(160, 0x10 + n);

describe("the Telnyx media leg on the Telnyx simulator's stream", () => {
  it("start → the callee's frames → our audio and marks echoed once played → clear → keys → stop", { timeout: 20_000 }, async () => {
    const { stream, leg, seen } = await simulatedStream();

    // start: stream_id, call_control_id, our parameters from client_state; PCMU/8000 taken.
    await waitFor(() => seen.starts.length === 1, "start");
    expect(seen.starts[0]).toEqual({ streamId: stream.streamId, carrierCallId: "v3:sim-call", parameters: { token: "tok-1" }, continuousClock: false });

    // The callee speaks on the inbound track; what is played comes back on the outbound track and is not the callee.
    stream.sendMedia("inbound", voice(1), 1000);
    stream.sendMedia("outbound", Buffer.alloc(160, ULAW_SILENCE), 1000);
    stream.sendMedia("inbound", voice(2), 1020);
    await waitFor(() => seen.frames.length === 2, "two callee frames");
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen.frames).toEqual([
      { audio: voice(1), timestampMs: 0 },
      { audio: voice(2), timestampMs: 20 },
    ]);

    // Our audio (three frames in one RTP media frame), then a mark: the mark comes back only once it has played.
    const utterance = Buffer.concat([voice(3), voice(4), voice(5)]);
    leg.sendAudio(utterance);
    leg.mark("item_1:60:g1:m1");
    await waitFor(() => stream.received.length === 2, "our media and mark at the simulator");
    expect(stream.received).toEqual([{ event: "media" }, { event: "mark", mark: "item_1:60:g1:m1" }]);
    expect(stream.playFrame()).toEqual(voice(3));
    expect(stream.playFrame()).toEqual(voice(4));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen.marks).toEqual([]);
    expect(stream.playFrame()).toEqual(voice(5));
    expect(stream.playFrame()).toBeNull(); // the mark is reached: sent back
    await waitFor(() => seen.marks.length === 1, "the played mark");
    expect(seen.marks).toEqual(["item_1:60:g1:m1"]);

    // An interruption: clear drops what is still queued and the simulator returns its marks at once.
    leg.sendAudio(Buffer.alloc(8000, 0x33));
    leg.mark("item_2:1000:g2:m1");
    leg.sendAudio(Buffer.alloc(8000, 0x34));
    leg.mark("item_2:2000:g2:m2");
    await waitFor(() => stream.received.length === 6, "the second utterance at the simulator");
    expect(stream.playFrame()).toEqual(Buffer.alloc(160, 0x33));
    leg.clear();
    await waitFor(() => seen.marks.length === 3, "the cleared marks");
    expect(seen.marks.slice(1)).toEqual(["item_2:1000:g2:m1", "item_2:2000:g2:m2"]);
    expect(stream.received.at(-1)).toEqual({ event: "clear" });
    expect(stream.playFrame()).toBeNull();

    // The callee presses keys.
    stream.dtmf("5");
    stream.dtmf("#");
    await waitFor(() => seen.digits.length === 2, "the keys");
    expect(seen.digits).toEqual(["5", "#"]);

    // Telnyx stops the stream: the leg stops once and is closed; sends go nowhere.
    stream.stop();
    await waitFor(() => seen.stops === 1, "stop");
    await stream.closed;
    expect(leg.open).toBe(false);
    leg.sendAudio(voice(6));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(seen.stops).toBe(1);
    expect(stream.received.length).toBe(7);
  });

  it("a stream opened without our client_state starts with no parameters (the bridge's token check refuses it)", async () => {
    const { leg, seen } = await simulatedStream({ clientState: null, track: "inbound_track" });
    await waitFor(() => seen.starts.length === 1, "start");
    expect(seen.starts[0]!.parameters).toEqual({});
    leg.close({ reason: "unknown call" });
  });
});
