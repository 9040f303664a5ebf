import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WebSocket } from "ws";
import { loadClip } from "@/server/simulators/voice-clips/clips";
import { ULAW_SILENCE } from "@/server/voice/g711";
import { CONNECTION_ID, PUBLIC_ORIGIN, STREAM_URL, startTelnyxStack, waitFor, type TelnyxStack } from "./harness";

/**
 * The Telnyx simulator's media stream, with a real `ws` server as the app: Telnyx's frames (`connected`, `start` with
 * `stream_id` and PCMU/8000/1, `media` per track, `dtmf`, `mark`, `stop`), the callee's turn-taking (it says hello,
 * waits for the agent's utterance to end, then answers — as the Twilio simulator's callee does), bidirectional RTP
 * media with marks returned when played and at once on `clear`, recording, and `streaming_stop`.
 */
type Frame = { event: string; sequence_number?: string; stream_id?: string; start?: Record<string, unknown>; media?: { track: string; chunk: string; timestamp: string; payload: string }; mark?: { name: string }; dtmf?: { digit: string }; stop?: Record<string, unknown> };

let stack: TelnyxStack;

beforeAll(async () => {
  stack = await startTelnyxStack({ speed: 4 });
});
afterAll(async () => {
  await stack?.stop();
});

function collect(socket: WebSocket): Frame[] {
  const frames: Frame[] = [];
  socket.on("message", (data) => frames.push(JSON.parse(data.toString()) as Frame));
  return frames;
}

const speech = (frame: Frame) => Buffer.from(frame.media!.payload, "base64").some((byte) => byte !== ULAW_SILENCE);

describe("Telnyx simulator: media streaming", () => {
  it("streams the callee, plays the agent's RTP media, returns marks, clears, records and stops", { timeout: 60_000 }, async () => {
    const { data } = await stack.client.calls.dial({
      connection_id: CONNECTION_ID,
      from: "+12125550142",
      to: "+14155550140",
      webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice`,
      stream_url: STREAM_URL,
      stream_track: "both_tracks",
      stream_bidirectional_mode: "rtp",
      stream_bidirectional_codec: "PCMU",
    });
    const id = data!.call_control_id;
    const socket = await waitFor(() => stack.sockets[0], "the media socket");
    const frames = collect(socket);
    const started = await stack.webhook("streaming.started", id);
    expect(started.event.data.payload.stream_url).toBe(STREAM_URL);
    await waitFor(() => frames.length >= 2, "connected and start");
    expect(frames[0]).toEqual({ event: "connected", version: "1.0.0" });
    expect(frames[1]).toMatchObject({ event: "start", sequence_number: "1", start: { call_control_id: id, media_format: { encoding: "PCMU", sample_rate: 8000, channels: 1 } } });
    const streamId = frames[1]!.stream_id;
    expect(streamId).toBe(started.event.data.payload.stream_id);

    // The callee picks up and says hello on the inbound track; then waits for the agent.
    const call = stack.telnyx.calls.get(id)!;
    await waitFor(() => call.calleeSpans.some((span) => span.clip === "callee.hello"), "the callee's hello");
    const inbound = frames.filter((frame) => frame.event === "media" && frame.media!.track === "inbound");
    expect(inbound.some(speech)).toBe(true);
    expect(inbound[0]).toMatchObject({ stream_id: streamId, media: { chunk: "1", timestamp: "0" } });

    // A mark with nothing queued comes back at once.
    socket.send(JSON.stringify({ event: "mark", mark: { name: "nothing-queued" } }));
    await waitFor(() => frames.find((frame) => frame.event === "mark" && frame.mark?.name === "nothing-queued"), "the immediate mark");

    expect((await stack.client.calls.actions.startRecording(id, { format: "wav", channels: "dual" })).data).toEqual({ result: "ok" });
    // The agent's utterance, in one RTP frame (Telnyx takes 20 ms to 30 s per frame), then the mark closing it.
    const intro = loadClip("agent.intro");
    socket.send(JSON.stringify({ event: "media", media: { payload: intro.toString("base64") } }));
    socket.send(JSON.stringify({ event: "mark", mark: { name: "done:intro" } }));
    const mark = await waitFor(() => frames.find((frame) => frame.event === "mark" && frame.mark?.name === "done:intro"), "the intro's mark", 20_000);
    // The mark came after the utterance had played: its frames went out on the outbound track first.
    const outboundBeforeMark = frames.slice(0, frames.indexOf(mark)).filter((frame) => frame.event === "media" && frame.media!.track === "outbound");
    expect(outboundBeforeMark.length).toBe(Math.ceil(intro.length / 160));
    // The callee answers once the agent is done (voice-script.ts: `callee.yes-book` for a last digit 0).
    await waitFor(() => call.calleeSpans.some((span) => span.clip === "callee.yes-book"), "the callee's answer", 20_000);
    expect(call.calleeSpans.find((span) => span.clip === "callee.yes-book")!.startMs).toBeGreaterThan(outboundBeforeMark.length * 20);

    // Clear: queued audio is dropped and its mark comes back at once, long before 10 s of audio could have played.
    const playedBefore = frames.filter((frame) => frame.event === "media" && frame.media!.track === "outbound").length;
    socket.send(JSON.stringify({ event: "media", media: { payload: Buffer.alloc(80_000, 0x10).toString("base64") } }));
    socket.send(JSON.stringify({ event: "mark", mark: { name: "cleared" } }));
    await waitFor(() => frames.filter((frame) => frame.event === "media" && frame.media!.track === "outbound").length > playedBefore, "the new audio playing");
    socket.send(JSON.stringify({ event: "clear" }));
    await waitFor(() => frames.find((frame) => frame.event === "mark" && frame.mark?.name === "cleared"), "the cleared mark", 2000);
    const playedAfter = frames.filter((frame) => frame.event === "media" && frame.media!.track === "outbound").length;
    expect(playedAfter - playedBefore).toBeLessThan(250);

    // The callee's keys: a dtmf frame on the stream (and the webhook).
    await stack.telnyx.pressKeys(id, "5");
    await waitFor(() => frames.find((frame) => frame.event === "dtmf" && frame.dtmf?.digit === "5"), "the dtmf frame");

    // record_stop: call.recording.saved with a WAV of both directions.
    await stack.client.calls.actions.stopRecording(id, {});
    const saved = await stack.webhook("call.recording.saved", id);
    const urls = saved.event.data.payload.recording_urls as { wav: string };
    expect(saved.event.data.payload.channels).toBe("dual");
    const wav = Buffer.from(await (await fetch(urls.wav)).arrayBuffer());
    expect(wav.subarray(0, 4).toString()).toBe("RIFF");
    expect(wav.readUInt16LE(22)).toBe(2);

    // streaming_stop: a stop frame, the socket closed, streaming.stopped.
    const closed = new Promise<void>((resolve) => socket.once("close", () => resolve()));
    expect((await stack.client.calls.actions.stopStreaming(id, {})).data).toEqual({ result: "ok" });
    await closed;
    expect(frames.at(-1)).toMatchObject({ event: "stop", stream_id: streamId, stop: { call_control_id: id } });
    await stack.webhook("streaming.stopped", id);
    // Sequence numbers count every frame after `connected`.
    expect(frames.slice(1).map((frame) => Number(frame.sequence_number))).toEqual(frames.slice(1).map((_, index) => index + 1));
    await stack.client.calls.actions.hangup(id, {});
    await stack.webhook("call.hangup", id);
  });

  it("a stream_url nobody answers: streaming.failed", async () => {
    const { data } = await stack.client.calls.dial({ connection_id: CONNECTION_ID, from: "+12125550142", to: "+14155550150", webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice`, stream_url: "wss://nobody.example.test/media" });
    const failed = await stack.webhook("streaming.failed", data!.call_control_id);
    expect(failed.event.data.payload.stream_url).toBe("wss://nobody.example.test/media");
    await stack.client.calls.actions.hangup(data!.call_control_id, {});
  });

  it("without stream_bidirectional_mode rtp the app's media is not played: an error frame answers it", async () => {
    const before = stack.sockets.length;
    const { data } = await stack.client.calls.dial({ connection_id: CONNECTION_ID, from: "+12125550142", to: "+14155550151", webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice`, stream_url: STREAM_URL });
    const socket = await waitFor(() => stack.sockets[before], "the media socket");
    const frames = collect(socket);
    await stack.webhook("streaming.started", data!.call_control_id);
    socket.send(JSON.stringify({ event: "media", media: { payload: Buffer.alloc(160, 0x10).toString("base64") } }));
    const error = await waitFor(() => frames.find((frame) => frame.event === "error"), "the error frame");
    expect(error).toMatchObject({ payload: { code: 100004 } });
    expect(frames.some((frame) => frame.event === "media" && frame.media!.track === "outbound")).toBe(false);
    await stack.client.calls.actions.hangup(data!.call_control_id, {});
  });
});
