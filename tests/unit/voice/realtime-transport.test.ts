import { randomBytes } from "node:crypto";
import type { AddressInfo } from "node:net";
import { utils } from "@openai/agents-realtime";
import { afterEach, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import type { CallerFrame, MediaLeg, MediaLegEvents, MediaLegStart } from "@/server/voice/conversation/media-leg";
import { arrayBufferToBase64, base64ToArrayBuffer, isDoneMark, MediaLegTransport } from "@/server/voice/conversation/realtime-transport";

// The SDK's own converters (its Twilio transport used them).
const sdk = { encode: utils.arrayBufferToBase64, decode: utils.base64ToArrayBuffer };

type Sent = { kind: "audio"; audio: Buffer } | { kind: "mark"; name: string } | { kind: "clear" };

/** Our port, in memory: the test plays the carrier (frames in, marks back) and reads what the transport sent. */
class MemoryLeg implements MediaLeg {
  started: MediaLegStart | null;
  open = true;
  readonly sent: Sent[] = [];
  private readonly listeners = new Map<string, Set<(...args: never[]) => void>>();

  constructor(start: Partial<MediaLegStart> = {}) {
    this.started = { streamId: "MZ1", carrierCallId: "CA1", parameters: {}, continuousClock: true, ...start };
  }

  on<E extends keyof MediaLegEvents>(event: E, listener: MediaLegEvents[E]) {
    const set = this.listeners.get(event) ?? new Set();
    this.listeners.set(event, set);
    set.add(listener as never);
    return () => void set.delete(listener as never);
  }

  emit<E extends keyof MediaLegEvents>(event: E, ...args: Parameters<MediaLegEvents[E]>) {
    for (const listener of this.listeners.get(event) ?? []) (listener as (...a: unknown[]) => void)(...args);
  }

  frame(frame: CallerFrame) {
    this.emit("audio", frame);
  }

  sendAudio(audio: Uint8Array) {
    this.sent.push({ kind: "audio", audio: Buffer.from(audio) });
  }

  mark(name: string) {
    this.sent.push({ kind: "mark", name });
  }

  clear() {
    this.sent.push({ kind: "clear" });
  }

  close() {
    this.open = false;
    this.emit("stop");
  }
}

/** The model's side: a local WebSocket server that records what the transport sends and sends what the test says. */
async function modelServer() {
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", () => resolve()));
  const received: Array<Record<string, unknown>> = [];
  let socket: WebSocket | null = null;
  wss.on("connection", (ws) => {
    socket = ws;
    ws.on("message", (data: Buffer) => received.push(JSON.parse(data.toString()) as Record<string, unknown>));
  });
  return {
    url: `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`,
    received,
    send: (event: Record<string, unknown>) => socket!.send(JSON.stringify({ event_id: `ev_${Math.random()}`, ...event })),
    close: () => new Promise<void>((resolve) => wss.close(() => resolve())),
  };
}

const until = async (check: () => boolean) => {
  const deadline = Date.now() + 3000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out");
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
};

const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const run of cleanup.splice(0)) await run();
});

async function connected(leg: MemoryLeg) {
  const model = await modelServer();
  const transport = new MediaLegTransport({ leg });
  cleanup.push(() => transport.close(), model.close);
  await transport.connect({ apiKey: "sk-test", url: model.url, model: "gpt-realtime", initialSessionConfig: {} });
  return { model, transport };
}

const appends = (received: Array<Record<string, unknown>>) => received.filter((event) => event.type === "input_audio_buffer.append").map((event) => Buffer.from(String(event.audio), "base64"));

describe("MediaLegTransport: the Realtime session on our media-leg port", () => {
  it("encodes and decodes base64 exactly as the SDK's converters, for frames of every size and views on larger buffers", () => {
    for (const size of [0, 1, 2, 3, 159, 160, 161, 320, 4096, 65_537]) {
      const bytes = new Uint8Array(randomBytes(size));
      const encoded = sdk.encode(bytes.buffer);
      expect(arrayBufferToBase64(bytes.buffer)).toBe(encoded);
      expect(new Uint8Array(base64ToArrayBuffer(encoded))).toEqual(new Uint8Array(sdk.decode(encoded)));
    }
    const whole = new Uint8Array(randomBytes(400));
    expect(arrayBufferToBase64(whole.subarray(100, 260))).toBe(sdk.encode(whole.slice(100, 260).buffer));
  });

  it("appends the caller's frames once connected (not before), and fills a gap in their timestamps with µ-law silence", async () => {
    const leg = new MemoryLeg();
    const early = randomBytes(160);
    const model = await modelServer();
    const transport = new MediaLegTransport({ leg });
    cleanup.push(() => transport.close(), model.close);
    leg.frame({ audio: early, timestampMs: 0 });
    await transport.connect({ apiKey: "sk-test", url: model.url, model: "gpt-realtime", initialSessionConfig: {} });
    const [a, b, c] = [randomBytes(160), randomBytes(160), randomBytes(160)];
    leg.frame({ audio: a, timestampMs: 20 });
    leg.frame({ audio: b, timestampMs: 40 });
    // 40 ms of audio lost between 60 and 100.
    leg.frame({ audio: c, timestampMs: 100 });
    await until(() => appends(model.received).length >= 4);
    expect(appends(model.received)).toEqual([a, b, Buffer.alloc(320, 0xff), c]);
    // The session is asked for G.711 µ-law both ways.
    const update = model.received.find((event) => event.type === "session.update") as { session: { audio: { input: { format: unknown }; output: { format: unknown } } } };
    expect(JSON.stringify(update.session.audio.input.format)).toContain("pcmu");
    expect(JSON.stringify(update.session.audio.output.format)).toContain("pcmu");
  });

  it("pads nothing when the leg's clock is not continuous", async () => {
    const leg = new MemoryLeg({ continuousClock: false });
    const { model } = await connected(leg);
    const [a, b] = [randomBytes(160), randomBytes(160)];
    leg.frame({ audio: a, timestampMs: 0 });
    leg.frame({ audio: b, timestampMs: 500 });
    await until(() => appends(model.received).length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(appends(model.received)).toEqual([a, b]);
  });

  it("plays the model's audio with a mark after each chunk, and on an interruption clears the leg and truncates at what the marks say was heard (+50 ms)", async () => {
    const leg = new MemoryLeg();
    const { model, transport } = await connected(leg);
    model.send({ type: "response.created", response: { id: "resp_1", object: "realtime.response", status: "in_progress", output: [] } });
    const chunks = [randomBytes(800), randomBytes(800), randomBytes(800)];
    for (const chunk of chunks) model.send({ type: "response.output_audio.delta", response_id: "resp_1", item_id: "item_1", output_index: 0, content_index: 0, delta: chunk.toString("base64") });
    await until(() => leg.sent.length >= 6);
    expect(leg.sent).toEqual([
      { kind: "audio", audio: chunks[0] },
      { kind: "mark", name: "item_1:100:g1:m1" },
      { kind: "audio", audio: chunks[1] },
      { kind: "mark", name: "item_1:200:g1:m2" },
      { kind: "audio", audio: chunks[2] },
      { kind: "mark", name: "item_1:300:g1:m3" },
    ]);
    expect(isDoneMark("item_1:100:g1:m1")).toBe(false);
    // The callee has heard the first chunk only.
    leg.emit("mark", "item_1:100:g1:m1");
    expect(transport.playbackPosition()).toEqual([{ itemId: "item_1", contentIndex: 0, audioEndMs: 150 }]);
    transport.interrupt();
    expect(leg.sent.at(-1)).toEqual({ kind: "clear" });
    await until(() => model.received.some((event) => event.type === "conversation.item.truncate"));
    expect(model.received.find((event) => event.type === "conversation.item.truncate")).toMatchObject({ item_id: "item_1", content_index: 0, audio_end_ms: 150 });
    expect(model.received.some((event) => event.type === "response.cancel")).toBe(true);
    // Audio of the cut-off response still arriving is not played.
    const sentBefore = leg.sent.length;
    model.send({ type: "response.output_audio.delta", response_id: "resp_1", item_id: "item_1", output_index: 0, content_index: 0, delta: randomBytes(160).toString("base64") });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(leg.sent.length).toBe(sentBefore);
    expect(transport.playbackPosition()).toEqual([]);
  });

  it("marks the end of an item's audio with a done mark; once it is back the item is no longer truncated", async () => {
    const leg = new MemoryLeg();
    const { model, transport } = await connected(leg);
    model.send({ type: "response.created", response: { id: "resp_2", object: "realtime.response", status: "in_progress", output: [] } });
    model.send({ type: "response.output_audio.delta", response_id: "resp_2", item_id: "item_2", output_index: 0, content_index: 0, delta: randomBytes(160).toString("base64") });
    model.send({ type: "response.output_audio.done", response_id: "resp_2", item_id: "item_2", output_index: 0, content_index: 0 });
    await until(() => leg.sent.length >= 3);
    const done = leg.sent[2] as { kind: "mark"; name: string };
    expect(done).toEqual({ kind: "mark", name: "done:item_2:g1:m2" });
    expect(isDoneMark(done.name)).toBe(true);
    leg.emit("mark", done.name);
    expect(transport.playbackPosition()).toEqual([]);
  });

  it("closes the model connection when the leg stops", async () => {
    const leg = new MemoryLeg();
    const { transport } = await connected(leg);
    expect(transport.status).toBe("connected");
    leg.close();
    expect(transport.status).toBe("disconnected");
  });
});
