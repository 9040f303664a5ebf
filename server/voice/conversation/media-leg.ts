/**
 * The media leg: what a carrier implements so that a conversation (conversation.ts) can run on its calls
 * (docs/carriers.md, "Ports"). One leg is one call's bidirectional audio stream, seen from our side, in the carrier's
 * own protocol behind it (Twilio Media Streams: server/carriers/twilio/media-stream-leg.ts).
 *
 * Audio is 8 kHz G.711 µ-law, mono, both ways. Nothing here knows the model: the Realtime transport
 * (realtime-transport.ts) turns caller frames into `input_audio_buffer.append`, and the model's audio into frames out,
 * each followed by a mark; when the callee interrupts, it `clear`s the leg and truncates the model's item at what the
 * marks say the callee has heard.
 */

/** A frame of the callee's audio. */
export type CallerFrame = {
  /** 8 kHz µ-law bytes (20 ms = 160 bytes at Twilio). */
  audio: Buffer;
  /** Where the frame starts on the leg's media clock, in ms; null when the carrier gave none. */
  timestampMs: number | null;
};

/** What the carrier said when the leg started. */
export type MediaLegStart = {
  /** The carrier's ID of this stream (Twilio's `streamSid`). */
  streamId: string;
  /** The carrier's ID of the call (Twilio's `CallSid`), "" when unknown. */
  carrierCallId: string;
  /** Our own parameters the stream was opened with (the stream token, `resume`). */
  parameters: Record<string, string>;
  /**
   * The frames' timestamps are one continuous 8 kHz µ-law clock: a gap between two frames is audio the carrier lost,
   * and the transport fills it with silence so the model's VAD clock keeps up with the call's.
   */
  continuousClock: boolean;
};

export type MediaLegEvents = {
  /** The stream has started (once, before any frame). */
  start: (start: MediaLegStart) => void;
  /** A frame of the callee's audio. */
  audio: (frame: CallerFrame) => void;
  /** A mark placed with `mark(name)` was reached: the callee has heard everything sent before it. */
  mark: (name: string) => void;
  /** A key the callee pressed (0-9, *, #, A-D). */
  dtmf: (digit: string) => void;
  /** The leg is over: the carrier stopped it, hung up, or the connection dropped (once). */
  stop: () => void;
};

export type MediaLeg = {
  /** Set once the leg has started (`start` event); null before. */
  readonly started: MediaLegStart | null;
  /** False once the leg has stopped: what is sent then goes nowhere. */
  readonly open: boolean;
  /** Adds a listener; returns its removal. */
  on<E extends keyof MediaLegEvents>(event: E, listener: MediaLegEvents[E]): () => void;
  /** Plays 8 kHz µ-law audio to the callee, after what is already queued. */
  sendAudio(audio: Uint8Array): void;
  /** Places a mark after the audio sent so far: `mark` comes back when the callee has heard up to it. */
  mark(name: string): void;
  /** Drops the audio still queued at the carrier (the callee hears nothing more of it); pending marks are not echoed. */
  clear(): void;
  /** Plays keypad tones into the call, when the carrier can on its media leg (Twilio cannot: dtmf.ts redirects the call). */
  sendDigits?(digits: string): void;
  /**
   * Ends the leg from our side. `reason`: we refuse the leg (an unknown call); `abrupt`: the connection just drops
   * (a crashed process, in tests).
   */
  close(options?: { abrupt?: boolean; reason?: string }): void;
};
