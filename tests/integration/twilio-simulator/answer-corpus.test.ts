import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { WebSocketServer, type WebSocket } from "ws";
import { corpusAmd, corpusNumber, corpusOpening } from "@/server/simulators/answer-corpus/numbers";
import { startTwilioSimulator, type TwilioSimulator } from "@/server/simulators/twilio";
import { loadClip } from "@/server/simulators/voice-clips/clips";
import type { AnswerClass } from "@/server/voice/answer-classifier/types";
import { ULAW_SILENCE } from "@/server/voice/g711";
import { createTwilioClient, type TwilioClient } from "@/server/carriers/twilio/twilio-client";

/**
 * The Twilio simulator answers `+1 NPA 555-3CII` with item `II` of class `C` of the answer corpus (issue 37), driven
 * through the official client with a `ws` server standing in for the app's media socket: the Media Streams audio
 * begins with that item's opening byte for byte, the asynchronous AMD callback says what the bench's "Twilio AMD
 * alone" says for it, and the callee then behaves as its class does (a menu's right key reaches a person, a wrong one
 * gets the menu again until it hangs up, a screener's person picks up once announced, an intercept hangs up, a fax
 * keeps sending CNG, a queue's person picks up after the music).
 */
const ORIGIN = "https://corpus.example.test";
const STREAM_URL = "wss://corpus.example.test/media";
const STREAM_TWIML = `<Response><Connect><Stream url="${STREAM_URL}"/></Connect></Response>`;

type Socket = { ws: WebSocket; streamSid: string; inbound: Buffer[]; marks: string[] };

let twilio: TwilioSimulator;
let client: TwilioClient;
let receiver: http.Server;
let wss: WebSocketServer;
const sockets: Socket[] = [];

beforeAll(async () => {
  receiver = http.createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(200).end());
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  wss.on("connection", (ws) => {
    const socket: Socket = { ws, streamSid: "", inbound: [], marks: [] };
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as { event: string; streamSid?: string; media?: { track: string; payload: string }; mark?: { name: string } };
      if (message.event === "start") socket.streamSid = message.streamSid!;
      if (message.event === "media" && message.media!.track === "inbound") socket.inbound.push(Buffer.from(message.media!.payload, "base64"));
      if (message.event === "mark") socket.marks.push(message.mark!.name);
    });
    sockets.push(socket);
  });
  const receiverOrigin = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}`;
  const wsOrigin = `ws://127.0.0.1:${(wss.address() as AddressInfo).port}`;
  twilio = await startTwilioSimulator({ speed: 8, resolvePublicUrl: (url) => url.replace(STREAM_URL, `${wsOrigin}/media`).replace(ORIGIN, receiverOrigin), log: () => {} });
  client = createTwilioClient({ twilio: { accountSid: twilio.accountSid, authToken: twilio.authToken, restUsername: twilio.accountSid, restPassword: twilio.authToken, apiBaseUrl: twilio.origin } });
});
afterAll(async () => {
  await twilio?.stop();
  for (const socket of wss?.clients ?? []) socket.terminate();
  await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
  receiver?.closeAllConnections();
  await new Promise<void>((resolve) => (receiver ? receiver.close(() => resolve()) : resolve()));
});

async function waitFor<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** Dials the corpus item with async AMD and a media stream; returns the call, its first socket and its AMD callback. */
async function dial(label: AnswerClass, index: number) {
  const to = corpusNumber(label, index);
  const before = sockets.length;
  const created = await client.calls.create({
    from: "+12125550100",
    to,
    twiml: STREAM_TWIML,
    machineDetection: "DetectMessageEnd",
    asyncAmd: "true",
    asyncAmdStatusCallback: `${ORIGIN}/amd`,
    statusCallback: `${ORIGIN}/status`,
  });
  const call = twilio.calls.get(created.sid)!;
  const socket = await waitFor(() => sockets[before], "the media socket");
  const amd = () => twilio.callbacks.find((entry) => entry.kind === "amd" && entry.params.CallSid === created.sid);
  return { call, socket, amd, opening: corpusOpening({ label, index }), expectedAmd: corpusAmd({ label, index }) };
}

const audio = (socket: Socket) => Buffer.concat(socket.inbound);

/** The stream's audio begins with the opening, byte for byte (as far as both go). */
function expectBeginsWith(socket: Socket, opening: Uint8Array) {
  const received = audio(socket);
  const length = Math.min(received.length, opening.length);
  expect(length).toBeGreaterThan(8000);
  expect(received.subarray(0, length).equals(Buffer.from(opening.subarray(0, length)))).toBe(true);
}

/** The agent says a clip over the stream and marks its end (as the app's bridge does). */
function agentSays(socket: Socket, clip: Parameters<typeof loadClip>[0], mark: string) {
  socket.ws.send(JSON.stringify({ event: "media", streamSid: socket.streamSid, media: { payload: loadClip(clip).toString("base64") } }));
  socket.ws.send(JSON.stringify({ event: "mark", streamSid: socket.streamSid, mark: { name: mark } }));
}

const said = (call: { calleeSpans: Array<{ clip: string }> }, clip: string) => call.calleeSpans.some((span) => span.clip === clip);

describe("Twilio simulator: answer-corpus numbers", () => {
  it("a person who says nothing for 2 s then hello: the opening, AMD human, then they answer the agent in turn", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening, expectedAmd } = await dial("human", 2);
    expect(opening.hard).toBe("silent 2 s");
    const amdCallback = await waitFor(amd, "the AMD callback");
    expect(expectedAmd).toMatchObject({ answeredBy: "human" });
    expect(amdCallback.params.AnsweredBy).toBe("human");
    await waitFor(() => said(call, "corpus:human-02"), "the opening");
    expectBeginsWith(socket, opening.ulaw);
    // The first 2 s of the stream are (near) silence: nobody spoke yet.
    expect(call.calleeSpans[0]).toMatchObject({ clip: "corpus:human-02" });
    // At the modelled time from the opening's first frame (1.2 s after the end of "Hello?").
    expect(Math.abs(Number(amdCallback.params.MachineDetectionDuration) - call.calleeSpans[0]!.startMs - expectedAmd!.atMs)).toBeLessThanOrEqual(40);
    expect(said(call, "callee.yes-book")).toBe(false);
    agentSays(socket, "agent.intro", "done:intro");
    await waitFor(() => said(call, "callee.yes-book"), "the person's answer");
    await client.calls(call.sid).update({ status: "completed" });
  });

  it("a phone menu: AMD unknown; the right key connects a person who answers in turn", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening, expectedAmd } = await dial("ivr", 0);
    expect((await waitFor(amd, "the AMD callback")).params.AnsweredBy).toBe(expectedAmd!.answeredBy);
    expect(expectedAmd!.answeredBy).toBe("unknown");
    await waitFor(() => audio(socket).length >= opening.ulaw.length, "the whole prompt");
    expectBeginsWith(socket, opening.ulaw);
    // "For appointments, press 1": the app plays the key, then reconnects its stream.
    const before = sockets.length;
    await client.calls(call.sid).update({ twiml: `<Response><Play digits="1"/>${STREAM_TWIML.replace("<Response>", "")}` });
    const second = await waitFor(() => sockets[before], "the second media socket");
    await waitFor(() => said(call, "person.sales-hello"), "the person reached");
    expect(said(call, "menu.connecting")).toBe(true);
    agentSays(second, "agent.intro", "done:intro");
    await waitFor(() => said(call, "callee.yes-book"), "the person's answer");
    await client.calls(call.sid).update({ status: "completed" });
  });

  it("a phone menu: a wrong key gets the prompt again, and without the right one the menu hangs up", { timeout: 60_000 }, async () => {
    const { call, socket, opening } = await dial("ivr", 3);
    await waitFor(() => audio(socket).length >= opening.ulaw.length, "the whole prompt");
    const before = sockets.length;
    // "For the directory, press 9": 5 is no option.
    await client.calls(call.sid).update({ twiml: `<Response><Play digits="5"/>${STREAM_TWIML.replace("<Response>", "")}` });
    const second = await waitFor(() => sockets[before], "the second media socket");
    await waitFor(() => call.events.includes("party-hung-up"), "the menu hanging up", 40_000);
    await waitFor(() => call.status === "completed", "the call's end");
    expect(said(call, "menu.connecting")).toBe(false);
    // The prompt came again on the second stream (its opening bytes, after the key).
    const again = audio(second);
    expect(again.indexOf(Buffer.from(opening.ulaw.subarray(16_000, 16_800)))).toBeGreaterThanOrEqual(0);
  });

  it("a call screener: AMD human (as Twilio sees it); once announced, the screened person picks up", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening } = await dial("screener", 0);
    expect((await waitFor(amd, "the AMD callback")).params.AnsweredBy).toBe("human");
    await waitFor(() => said(call, "corpus:screener-00"), "the screener's prompt");
    expectBeginsWith(socket, opening.ulaw);
    expect(said(call, "callee.hello")).toBe(false);
    agentSays(socket, "agent.intro", "done:announcement");
    await waitFor(() => said(call, "callee.hello"), "the person picking up");
    agentSays(socket, "agent.intro", "done:intro");
    await waitFor(() => said(call, "callee.yes-book"), "the person's answer");
    await client.calls(call.sid).update({ status: "completed" });
  });

  it("voicemail: AMD machine_end_beep after the beep, then it records silence until the caller hangs up", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening } = await dial("voicemail", 0);
    expect(opening.beepEndMs).not.toBeNull();
    expect((await waitFor(amd, "the AMD callback")).params.AnsweredBy).toBe("machine_end_beep");
    await waitFor(() => audio(socket).length >= opening.ulaw.length + 16_000, "2 s after the greeting");
    expectBeginsWith(socket, opening.ulaw);
    const after = audio(socket).subarray(opening.ulaw.length);
    expect(after.every((byte) => byte === ULAW_SILENCE)).toBe(true);
    expect(call.isFinal).toBe(false);
    await client.calls(call.sid).update({ status: "completed" });
  });

  it("an intercept: AMD machine_end_silence, the message, then it hangs up", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening } = await dial("intercept", 0);
    expect((await waitFor(amd, "the AMD callback")).params.AnsweredBy).toBe("machine_end_silence");
    await waitFor(() => call.events.includes("party-hung-up"), "the intercept hanging up");
    await waitFor(() => call.status === "completed", "the call's end");
    expectBeginsWith(socket, opening.ulaw);
  });

  it("a fax: AMD fax, then CNG tones until the caller hangs up", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening } = await dial("fax", 2);
    expect((await waitFor(amd, "the AMD callback")).params.AnsweredBy).toBe("fax");
    await waitFor(() => call.calleeSpans.filter((span) => span.clip === "corpus:cng").length >= 2, "two CNG cycles after the opening");
    expectBeginsWith(socket, opening.ulaw);
    expect(call.isFinal).toBe(false);
    await client.calls(call.sid).update({ status: "completed" });
  });

  it("a hold queue: AMD unknown, music, then a person who answers in turn", { timeout: 60_000 }, async () => {
    const { call, socket, amd, opening } = await dial("hold-queue", 2);
    expect((await waitFor(amd, "the AMD callback")).params.AnsweredBy).toBe("unknown");
    await waitFor(() => said(call, "person.sales-hello"), "the person picking up");
    expectBeginsWith(socket, opening.ulaw);
    expect(said(call, "tone.hold-music")).toBe(true);
    agentSays(socket, "agent.intro", "done:intro");
    await waitFor(() => said(call, "callee.yes-book"), "the person's answer");
    await client.calls(call.sid).update({ status: "completed" });
  });

  it("an index past its class's count is not a valid number; 555-30XX keeps its last digit's scenario", async () => {
    await expect(client.calls.create({ from: "+12125550100", to: "+14155553199", twiml: STREAM_TWIML })).rejects.toMatchObject({ code: 21211 });
    const created = await client.calls.create({ from: "+12125550100", to: "+14155553003", twiml: STREAM_TWIML });
    const call = twilio.calls.get(created.sid)!;
    await waitFor(() => call.status === "busy", "a busy line (last digit 3)");
  });
});
