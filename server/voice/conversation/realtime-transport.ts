import { OpenAIRealtimeWebSocket, type OpenAIRealtimeWebSocketOptions, type RealtimeSessionConfig, type RealtimeTransportLayerConnectOptions, type TransportLayerAudio } from "@openai/agents-realtime";
import type { CallerFrame, MediaLeg, MediaLegStart } from "./media-leg";

const MULAW_BYTES_PER_MS = 8;
const MULAW_SILENCE_BYTE = 0xff;
const MAX_SILENCE_PADDING_MS = 10_000;
const DEFAULT_INPUT_INACTIVITY_TIMEOUT_MS = 750;
const INPUT_INACTIVITY_SILENCE_MS = 1_000;
/** The marks whose echo ends an item's playback (the others each say how much of it has been heard). */
const DONE_MARK_PREFIX = "done:";

/** A mark of ours that closes an item's audio, rather than one placed after a frame. */
export const isDoneMark = (name: string) => name.startsWith(DONE_MARK_PREFIX);

/**
 * Base64 of audio with Node's native codec. The SDK's own converters are written for browsers
 * (`String.fromCharCode(...bytes)` then `btoa`): in the bridge at 100 calls they were its largest single cost, about
 * 18 µs per frame, where `Buffer` takes well under 1 µs (bench/media-bridge.ts, docs/call-quality.md "Measured").
 * Same output for every input (tests/unit/voice/realtime-transport.test.ts).
 */
export function arrayBufferToBase64(audio: ArrayBuffer | ArrayBufferView): string {
  const bytes = ArrayBuffer.isView(audio) ? Buffer.from(audio.buffer, audio.byteOffset, audio.byteLength) : Buffer.from(audio);
  return bytes.toString("base64");
}

export function base64ToArrayBuffer(base64: string): ArrayBuffer {
  const bytes = Buffer.from(base64, "base64");
  // A fresh buffer of its own (a Buffer may be a view on Node's shared pool).
  return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
}

type PlaybackItem = { responseId: string; itemId: string; contentIndex: number; sentDurationMs: number; playedDurationMs: number; doneMarkSent: boolean };
type PendingMark = { item: PlaybackItem; audioEndMs: number; kind: "audio" | "done" };

function withMulawDefaults(config: Partial<RealtimeSessionConfig> = {}): Partial<RealtimeSessionConfig> {
  const audio = "audio" in config ? config.audio : null;
  if (audio) {
    return { ...config, audio: { ...audio, input: { ...audio.input, format: audio.input?.format ?? "g711_ulaw" }, output: { ...audio.output, format: audio.output?.format ?? "g711_ulaw" } } } as Partial<RealtimeSessionConfig>;
  }
  const legacy = config as Record<string, unknown>;
  return { ...config, inputAudioFormat: legacy.inputAudioFormat ?? "g711_ulaw", outputAudioFormat: legacy.outputAudioFormat ?? "g711_ulaw" } as Partial<RealtimeSessionConfig>;
}

/**
 * The Realtime session's transport on any carrier's media leg (media-leg.ts): the SDK's
 * `TwilioRealtimeTransportLayer` (@openai/agents-extensions 0.18) reproduced on the abstract leg, with Node's native
 * base64. G.711 µ-law both ways. The caller's frames are appended to the model's input buffer (`input_audio_buffer
 * .append`) once connected; a gap in their timestamps (lost audio) is filled with silence, and so is a caller who goes
 * quiet mid-utterance (the leg sends nothing), so the model's VAD can end the turn. Each model audio chunk goes out
 * followed by a mark; the marks that come back say how much of each item the callee has heard. On an interruption
 * (the model's VAD, or ours) the leg is cleared, the response cancelled, and each item played truncated at what was
 * heard (+50 ms), as the SDK does.
 */
export class MediaLegTransport extends OpenAIRealtimeWebSocket {
  private readonly leg: MediaLeg;
  private playbackGeneration = 0;
  private markSequence = 0;
  private playbackItems: PlaybackItem[] = [];
  private readonly pendingMarks = new Map<string, PendingMark>();
  private readonly clearedMarkNames = new Set<string>();
  private activeResponseId: string | null = null;
  private readonly discardedResponseIds = new Set<string>();
  private nextInputTimestampMs: number | null = null;
  private lastInputMediaAtMs: number | null = null;
  private inputSpeechActive = false;
  private inputGapAlreadyPadded = false;
  private canPadInputAudio = false;
  private inputInactivityTimer: NodeJS.Timeout | null = null;
  private readonly inputInactivityTimeoutMs: number | null;
  private nextAudioMetadata: { responseId: string; itemId: string; contentIndex: number } | null = null;

  constructor(options: OpenAIRealtimeWebSocketOptions & { leg: MediaLeg; inputAudioInactivityTimeoutMs?: number | null }) {
    super(options);
    this.leg = options.leg;
    this.inputInactivityTimeoutMs = options.inputAudioInactivityTimeoutMs === undefined ? DEFAULT_INPUT_INACTIVITY_TIMEOUT_MS : options.inputAudioInactivityTimeoutMs;
    if (this.leg.started) this.legStarted(this.leg.started);
    else this.leg.on("start", (start) => this.legStarted(start));
    this.leg.on("audio", (frame) => {
      if (this.status === "connected") this.sendCallerFrame(frame);
    });
    this.leg.on("mark", (name) => this.markReached(name));
    this.leg.on("stop", () => {
      this.resetInputTiming();
      this.canPadInputAudio = false;
      if (this.status !== "disconnected") this.close();
    });
    this.on("response.output_audio.done", (event) => this.sendDoneMark(event.response_id, event.item_id, event.content_index));
    this.on("response.output_audio.delta", (event) => {
      this.nextAudioMetadata = { responseId: event.response_id, itemId: event.item_id, contentIndex: event.content_index };
    });
    this.on("response.created", (event) => {
      if (typeof event.response.id === "string") this.activeResponseId = event.response.id;
    });
    this.on("response.done", (event) => {
      const responseId = event.response.id;
      if (typeof responseId !== "string") return;
      this.discardedResponseIds.delete(responseId);
      if (this.activeResponseId === responseId) this.activeResponseId = null;
    });
    this.on("input_audio_buffer.speech_started", () => {
      this.inputSpeechActive = true;
      this.scheduleInactivityPadding();
    });
    this.on("input_audio_buffer.speech_stopped", () => {
      this.inputSpeechActive = false;
      this.clearInactivityTimer();
    });
  }

  private legStarted(start: MediaLegStart) {
    this.resetInputTiming();
    this.canPadInputAudio = start.continuousClock;
    this.playbackGeneration += 1;
    this.markSequence = 0;
    this.playbackItems = [];
    this.pendingMarks.clear();
    this.clearedMarkNames.clear();
    this.nextAudioMetadata = null;
  }

  override async connect(options: RealtimeTransportLayerConnectOptions) {
    if (this.status === "disconnected") this.resetInputTiming();
    options.initialSessionConfig = withMulawDefaults(options.initialSessionConfig);
    await super.connect(options);
  }

  override updateSessionConfig(config: Partial<RealtimeSessionConfig>) {
    super.updateSessionConfig(withMulawDefaults(config));
  }

  /** The caller's audio, appended as the SDK does when connected, base64 by Node's codec. */
  override sendAudio(audio: ArrayBuffer | Uint8Array, options: { commit?: boolean } = {}): void {
    if (this.status !== "connected") return;
    this.sendEvent({ type: "input_audio_buffer.append", audio: arrayBufferToBase64(audio) });
    if (options.commit) this.sendEvent({ type: "input_audio_buffer.commit" });
  }

  protected override _onClose() {
    this.clearPlaybackGeneration();
    this.activeResponseId = null;
    this.discardedResponseIds.clear();
    this.resetInputTiming();
    super._onClose();
  }

  private sendCallerFrame(frame: CallerFrame) {
    this.clearInactivityTimer();
    const timestamp = this.canPadInputAudio && frame.timestampMs !== null && Number.isSafeInteger(frame.timestampMs) && frame.timestampMs >= 0 ? frame.timestampMs : null;
    if (timestamp === null) this.nextInputTimestampMs = null;
    else if (this.nextInputTimestampMs !== null && timestamp < this.nextInputTimestampMs) this.nextInputTimestampMs = null;
    else {
      if (!this.inputGapAlreadyPadded && this.nextInputTimestampMs !== null && timestamp > this.nextInputTimestampMs) {
        this.sendSilence(Math.min(Math.floor(timestamp - this.nextInputTimestampMs), MAX_SILENCE_PADDING_MS));
      }
      this.nextInputTimestampMs = timestamp + frame.audio.byteLength / MULAW_BYTES_PER_MS;
    }
    this.inputGapAlreadyPadded = false;
    this.sendAudio(frame.audio);
    this.lastInputMediaAtMs = Date.now();
    this.scheduleInactivityPadding();
  }

  private sendSilence(durationMs: number) {
    this.sendAudio(Buffer.alloc(durationMs * MULAW_BYTES_PER_MS, MULAW_SILENCE_BYTE));
  }

  private scheduleInactivityPadding() {
    this.clearInactivityTimer();
    if (this.inputInactivityTimeoutMs === null || !this.canPadInputAudio || !this.inputSpeechActive || this.lastInputMediaAtMs === null) return;
    const delayMs = Math.max(0, this.inputInactivityTimeoutMs - (Date.now() - this.lastInputMediaAtMs));
    const timer = setTimeout(() => {
      if (this.inputInactivityTimer !== timer) return;
      this.inputInactivityTimer = null;
      if (this.status !== "connected" || !this.inputSpeechActive) return;
      this.sendSilence(INPUT_INACTIVITY_SILENCE_MS);
      this.inputGapAlreadyPadded = true;
    }, delayMs);
    this.inputInactivityTimer = timer;
    timer.unref?.();
  }

  private clearInactivityTimer() {
    if (this.inputInactivityTimer === null) return;
    clearTimeout(this.inputInactivityTimer);
    this.inputInactivityTimer = null;
  }

  private resetInputTiming() {
    this.clearInactivityTimer();
    this.nextInputTimestampMs = null;
    this.lastInputMediaAtMs = null;
    this.inputSpeechActive = false;
    this.inputGapAlreadyPadded = false;
  }

  private clearPlaybackGeneration() {
    this.playbackGeneration += 1;
    for (const name of this.pendingMarks.keys()) this.clearedMarkNames.add(name);
    this.playbackItems = [];
    this.pendingMarks.clear();
    this.nextAudioMetadata = null;
  }

  private findPlaybackItem(responseId: string, itemId: string, contentIndex: number) {
    return this.playbackItems.find((item) => item.responseId === responseId && item.itemId === itemId && item.contentIndex === contentIndex);
  }

  private sendMark(item: PlaybackItem, kind: "audio" | "done") {
    if (!this.leg.started) return;
    this.markSequence += 1;
    const suffix = `g${this.playbackGeneration}:m${this.markSequence}`;
    const name = kind === "done" ? `${DONE_MARK_PREFIX}${item.itemId}:${suffix}` : `${item.itemId}:${Math.floor(item.sentDurationMs)}:${suffix}`;
    this.pendingMarks.set(name, { item, audioEndMs: item.sentDurationMs, kind });
    this.leg.mark(name);
  }

  private sendDoneMark(responseId: string, itemId: string, contentIndex: number) {
    const item = this.findPlaybackItem(responseId, itemId, contentIndex);
    if (!item || item.doneMarkSent) return;
    item.doneMarkSent = true;
    this.sendMark(item, "done");
  }

  /** A mark came back: the item has been heard up to it (or, `done:`, to its end: it can no longer be truncated). */
  private markReached(name: string) {
    if (this.clearedMarkNames.delete(name)) return;
    const mark = this.pendingMarks.get(name);
    if (!mark) return;
    this.pendingMarks.delete(name);
    if (!this.playbackItems.includes(mark.item)) return;
    if (mark.kind === "audio") {
      mark.item.playedDurationMs = Math.max(mark.item.playedDurationMs, mark.audioEndMs);
      return;
    }
    this.playbackItems = this.playbackItems.filter((candidate) => candidate !== mark.item);
  }

  /** How much of each item still playing the callee has heard: the first item (or one heard at all) + 50 ms. */
  playbackPosition(): Array<{ itemId: string; contentIndex: number; audioEndMs: number }> {
    return this.playbackItems.map((item, index) => {
      const audioEndMs = index === 0 || item.playedDurationMs > 0 ? Math.min(item.sentDurationMs, item.playedDurationMs + 50) : 0;
      return { itemId: item.itemId, contentIndex: item.contentIndex, audioEndMs: Math.max(0, Math.floor(audioEndMs)) };
    });
  }

  private interruptPlayback(cancelOngoingResponse: boolean) {
    if (this.status !== "connected") return;
    if (this.activeResponseId === null && this.playbackItems.length === 0) return;
    const activeResponseId = this.activeResponseId;
    this.activeResponseId = null;
    const truncations = this.playbackPosition();
    if (activeResponseId !== null) this.discardedResponseIds.add(activeResponseId);
    for (const item of this.playbackItems) this.discardedResponseIds.add(item.responseId);
    this.clearPlaybackGeneration();
    try {
      if (this.leg.started) this.leg.clear();
      if (cancelOngoingResponse) this._cancelResponse();
      if (truncations.length === 0) return;
      this.emit("audio_interrupted");
      for (const truncation of truncations) {
        this.sendEvent({ type: "conversation.item.truncate", item_id: truncation.itemId, content_index: truncation.contentIndex, audio_end_ms: truncation.audioEndMs });
      }
    } finally {
      super._afterAudioDoneEvent();
    }
  }

  override interrupt(cancelOngoingResponse = true) {
    this.interruptPlayback(cancelOngoingResponse);
  }

  override _interrupt(_elapsedTime: number, cancelOngoingResponse = true) {
    this.interruptPlayback(cancelOngoingResponse);
  }

  protected override _onAudio(audioEvent: TransportLayerAudio) {
    const metadata = this.nextAudioMetadata;
    this.nextAudioMetadata = null;
    if (this.discardedResponseIds.has(audioEvent.responseId)) return;
    const itemId = this.currentItemId;
    if (itemId == null) {
      this.emit("audio", audioEvent);
      return;
    }
    const contentIndex = metadata?.responseId === audioEvent.responseId && metadata.itemId === itemId ? metadata.contentIndex : 0;
    const item = this.findPlaybackItem(audioEvent.responseId, itemId, contentIndex) ?? this.newPlaybackItem(audioEvent.responseId, itemId, contentIndex);
    item.sentDurationMs += audioEvent.data.byteLength / MULAW_BYTES_PER_MS;
    this.leg.sendAudio(new Uint8Array(audioEvent.data));
    this.sendMark(item, "audio");
    this.emit("audio", audioEvent);
  }

  private newPlaybackItem(responseId: string, itemId: string, contentIndex: number): PlaybackItem {
    const item = { responseId, itemId, contentIndex, sentDurationMs: 0, playedDurationMs: 0, doneMarkSent: false };
    this.playbackItems.push(item);
    return item;
  }
}
