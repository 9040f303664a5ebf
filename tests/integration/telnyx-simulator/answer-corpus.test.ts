import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { corpusNumber, corpusOpening } from "@/server/simulators/answer-corpus/numbers";
import { loadClip, type VoiceClipId } from "@/server/simulators/voice-clips/clips";
import type { AnswerClass } from "@/server/voice/answer-classifier/types";
import { ULAW_SILENCE } from "@/server/voice/g711";
import { CONNECTION_ID, PUBLIC_ORIGIN, STREAM_URL, startTelnyxStack, waitFor, type TelnyxStack } from "./harness";

/**
 * The Telnyx simulator answers `+1 NPA 555-3CII` with item `II` of class `C` of the answer corpus (issue 37), through
 * the official client with a `ws` server as the app's media socket: the inbound track carries the item's opening byte
 * for byte (from its first frame when nothing listened before the stream; from where the AMD had heard it to
 * otherwise), the AMD webhooks say what the modelled AMD says for it in Telnyx's words, and the callee then behaves
 * as its class does (send_dtmf's right key reaches a person, a screener's person picks up once announced, an
 * intercept hangs up, a fax keeps sending CNG, a queue's person picks up after the music).
 */
type Frame = { event: string; media?: { track: string; payload: string }; mark?: { name: string } };

let stack: TelnyxStack;

beforeAll(async () => {
  stack = await startTelnyxStack({ speed: 8 });
});
afterAll(async () => {
  await stack?.stop();
});

async function dial(label: AnswerClass, index: number, amd: string | null) {
  const before = stack.sockets.length;
  const { data } = await stack.client.calls.dial({
    connection_id: CONNECTION_ID,
    from: "+12125550142",
    to: corpusNumber(label, index),
    webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice`,
    stream_url: STREAM_URL,
    stream_track: "inbound_track",
    stream_bidirectional_mode: "rtp",
    stream_bidirectional_codec: "PCMU",
    ...(amd ? { answering_machine_detection: amd as "detect" } : {}),
  });
  const id = data!.call_control_id;
  const socket = await waitFor(() => stack.sockets[before], "the media socket");
  const frames: Frame[] = [];
  socket.on("message", (raw) => frames.push(JSON.parse(raw.toString()) as Frame));
  const call = stack.telnyx.calls.get(id)!;
  const inbound = () => Buffer.concat(frames.filter((frame) => frame.event === "media" && frame.media!.track === "inbound").map((frame) => Buffer.from(frame.media!.payload, "base64")));
  return { id, socket, call, inbound, opening: corpusOpening({ label, index }).ulaw };
}

/** Where in the opening the stream's audio starts (a whole frame in, at most 1 s), checking it matches from there. */
function streamOffset(received: Buffer, opening: Uint8Array): number {
  for (let offset = 0; offset <= 8000; offset += 160) {
    const length = Math.min(received.length, opening.length - offset, 16_000);
    if (length > 0 && received.subarray(0, length).equals(Buffer.from(opening.subarray(offset, offset + length)))) return offset;
  }
  return -1;
}

function agentSays(socket: WebSocket, clip: VoiceClipId, mark: string) {
  socket.send(JSON.stringify({ event: "media", media: { payload: loadClip(clip).toString("base64") } }));
  socket.send(JSON.stringify({ event: "mark", mark: { name: mark } }));
}

const said = (call: { calleeSpans: Array<{ clip: string }> }, clip: string) => call.calleeSpans.some((span) => span.clip === clip);
const result = async (eventType: string, id: string) => (await stack.webhook(eventType, id, 20_000)).event.data.payload.result;

describe("Telnyx simulator: answer-corpus numbers", () => {
  it("without AMD the stream begins with the opening's first byte; a person answers the agent in turn", { timeout: 60_000 }, async () => {
    const { id, socket, call, inbound, opening } = await dial("human", 3, null);
    await waitFor(() => inbound().length >= 16_000, "2 s of the opening");
    expect(streamOffset(inbound(), opening)).toBe(0);
    await waitFor(() => said(call, "corpus:human-03"), "the opening");
    agentSays(socket, "agent.intro", "done:intro");
    await waitFor(() => said(call, "callee.yes-book"), "the person's answer", 20_000);
    expect(stack.events(id)).not.toContain("call.machine.detection.ended");
    await stack.client.calls.actions.hangup(id, {});
  });

  it("a person who waits 2 s: the AMD says human (premium: human_residence)", { timeout: 60_000 }, async () => {
    const { id, inbound, opening } = await dial("human", 2, "premium");
    expect(await result("call.machine.premium.detection.ended", id)).toBe("human_residence");
    expect(streamOffset(inbound(), opening)).toBeGreaterThanOrEqual(0);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("a phone menu: not_sure; send_dtmf's right key connects a person who answers in turn", { timeout: 60_000 }, async () => {
    const { id, socket, call, inbound, opening } = await dial("ivr", 0, "detect");
    expect(await result("call.machine.detection.ended", id)).toBe("not_sure");
    expect(streamOffset(inbound(), opening)).toBeGreaterThanOrEqual(0);
    await stack.client.calls.actions.sendDtmf(id, { digits: "1" });
    await waitFor(() => said(call, "person.sales-hello"), "the person reached", 20_000);
    agentSays(socket, "agent.intro", "done:intro");
    await waitFor(() => said(call, "callee.yes-book"), "the person's answer", 20_000);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("a phone menu with no key pressed says its prompt three times and hangs up", { timeout: 60_000 }, async () => {
    const { id, call } = await dial("ivr", 1, null);
    const hangup = await stack.webhook("call.hangup", id, 40_000);
    expect(hangup.event.data.payload).toMatchObject({ hangup_source: "callee" });
    expect(said(call, "menu.connecting")).toBe(false);
  });

  it("a screener: human to the AMD; once announced, the screened person picks up", { timeout: 60_000 }, async () => {
    const { id, socket, call, inbound, opening } = await dial("screener", 1, "detect");
    expect(await result("call.machine.detection.ended", id)).toBe("human");
    await waitFor(() => said(call, "corpus:screener-01"), "the screener's prompt", 20_000);
    expect(streamOffset(inbound(), opening)).toBeGreaterThanOrEqual(0);
    expect(said(call, "callee.hello")).toBe(false);
    agentSays(socket, "agent.intro", "done:announcement");
    await waitFor(() => said(call, "callee.hello"), "the person picking up", 20_000);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("voicemail: machine, then the greeting ended with a beep; then silence", { timeout: 60_000 }, async () => {
    const { id, call, inbound, opening } = await dial("voicemail", 0, "detect_beep");
    expect(await result("call.machine.detection.ended", id)).toBe("machine");
    expect(await result("call.machine.greeting.ended", id)).toBe("beep_detected");
    await waitFor(() => said(call, "corpus:voicemail-00"), "the greeting", 20_000);
    const offset = streamOffset(inbound(), opening);
    expect(offset).toBeGreaterThanOrEqual(0);
    await waitFor(() => inbound().length >= opening.length - offset + 16_000, "2 s after the greeting", 20_000);
    expect(inbound().subarray(opening.length - offset).every((byte) => byte === ULAW_SILENCE)).toBe(true);
    expect(call.isAlive).toBe(true);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("an intercept: machine, the message, then it hangs up", { timeout: 60_000 }, async () => {
    const { id, inbound, opening } = await dial("intercept", 1, "detect");
    expect(await result("call.machine.detection.ended", id)).toBe("machine");
    const hangup = await stack.webhook("call.hangup", id, 20_000);
    expect(hangup.event.data.payload).toMatchObject({ hangup_source: "callee", hangup_cause: "normal_clearing" });
    expect(streamOffset(inbound(), opening)).toBeGreaterThanOrEqual(0);
  });

  it("a fax: not_sure to the AMD, then CNG until the caller hangs up", { timeout: 60_000 }, async () => {
    const { id, call, inbound, opening } = await dial("fax", 0, "detect");
    expect(await result("call.machine.detection.ended", id)).toBe("not_sure");
    await waitFor(() => call.calleeSpans.filter((span) => span.clip === "corpus:cng").length >= 2, "two CNG cycles", 20_000);
    expect(streamOffset(inbound(), opening)).toBeGreaterThanOrEqual(0);
    expect(call.isAlive).toBe(true);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("a hold queue: not_sure, music, then a person", { timeout: 60_000 }, async () => {
    const { id, call, inbound, opening } = await dial("hold-queue", 0, "detect");
    expect(await result("call.machine.detection.ended", id)).toBe("not_sure");
    await waitFor(() => said(call, "person.sales-hello"), "the person picking up", 20_000);
    expect(said(call, "tone.hold-music")).toBe(true);
    expect(streamOffset(inbound(), opening)).toBeGreaterThanOrEqual(0);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("an index past its class's count is not a valid number (not_found, as the last digit 6's number)", async () => {
    const { data } = await stack.client.calls.dial({ connection_id: CONNECTION_ID, from: "+12125550142", to: "+14155553299", webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice` });
    const hangup = await stack.webhook("call.hangup", data!.call_control_id);
    expect(hangup.event.data.payload).toMatchObject({ hangup_cause: "not_found" });
  });
});
