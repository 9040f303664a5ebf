import type { RealtimeSession } from "@openai/agents-realtime";
import type { TranscriptSpeaker } from "@/db/schema";
import type { BridgeQuality } from "@/db/schema/call-quality";
import type { ToolCallResult, PlaceCallRequest } from "@/server/voice/types";
import type { CallQualityRecorder } from "./quality-recorder";

/** The agent's apology when the conversation cannot go on (the Realtime model unreachable or lost): the carrier says it as it hangs up. */
export const APOLOGY_MESSAGE = "Sorry, we are having technical difficulties and have to end this call. We will call you back later. Goodbye.";

/** A spoken turn as the conversation stores it (through `saveLine`), on the call's media clock. */
export type TranscriptLineInput = { itemId: string; speaker: TranscriptSpeaker; text: string; offsetMs: number; endOffsetMs?: number | null; redactions?: string[] };

/** What a conversation needs of the engine's settings: the model and the call-quality threshold. */
export type ConversationSettings = { quality: { deadAirMs: number }; openai: { apiKey: string; model: string; realtimeUrl: string } };

/** A disclosure ready to be played: its exact text and that text spoken (µ-law). */
export type PreparedDisclosure = { kind: "identification" | "recordingNotice"; text: string; audio: Buffer };

/** What a conversation needs from the rest of the app; the carrier's media bridge wires them to Postgres and its call control. */
export type ConversationHooks = {
  load(callId: string): Promise<{ request: PlaceCallRequest; callSid: string | null } | null>;
  streamStarted(callId: string, streamSid: string): Promise<void>;
  /**
   * The stream is over. `streamSid`: only this stream's end counts (a call may have several streams in turn);
   * `quality`: what the bridge measured on it (null when no conversation ran); `media`: the callee's loudness envelope
   * (for aligning the recording before redaction).
   */
  streamEnded(callId: string, streamSid: string, measured: { quality: BridgeQuality | null; media: { envelope: Uint8Array; envelopeStartMs: number } | null }): Promise<void>;
  saveLine(request: PlaceCallRequest, line: TranscriptLineInput): Promise<void>;
  bookMeeting(request: PlaceCallRequest, callSid: string, args: { preferredStartTime: string | null }): Promise<ToolCallResult>;
  optOut(request: PlaceCallRequest): Promise<ToolCallResult>;
  /** The call's disclosures spoken as audio (docs/compliance.md); rejects when they cannot be (the call is then ended). */
  prepareDisclosures(request: PlaceCallRequest): Promise<PreparedDisclosure[]>;
  disclosureSpoken(request: PlaceCallRequest, params: { kind: PreparedDisclosure["kind"]; offsetMs: number }): Promise<void>;
  /** The contact objected to the recording: it stops for the rest of the call (idempotent). */
  stopRecording(request: PlaceCallRequest, params: { offsetMs: number; reason: string }): Promise<ToolCallResult>;
  hangUp(callId: string, params: { reason: string; say?: string | null; failure?: string }): Promise<void>;
  /**
   * The carrier's answering-machine verdict for the call (Twilio's words: `human`, `machine_end_beep`, …, `fax`,
   * `unknown`), wherever its callback landed; `unknown` when none came in time. Rejects when `signal` aborts (the stream ended first).
   */
  answeredBy(callId: string, signal: AbortSignal): Promise<string>;
  /** `transfer_call` (transfer.ts): the answer to the model and, when it goes ahead, how to start it. Absent: no tool. */
  transfer?(request: PlaceCallRequest, params: { callSid: string; target: string; reason: string }): Promise<{ result: ToolCallResult; start?: () => Promise<void> }>;
  /** `press_digits` (dtmf.ts): a refusal for keys that cannot be pressed, else null; `pressDigits` then presses them. */
  checkDigits?(digits: string): ToolCallResult | null;
  pressDigits?(callId: string, params: { digits: string; reason: string | null }): Promise<void>;
  /**
   * A stream that resumes the call's conversation (after pressed keys, or a transfer nobody answered): what was said
   * so far, the note the model gets, and whether it speaks first.
   */
  resume?(request: PlaceCallRequest, resume: string): Promise<ResumedConversation | null>;
  /** The session is created (not yet connected): a browser test call follows its tool calls and audio from here. */
  sessionCreated?(session: RealtimeSession, request: PlaceCallRequest): void;
};

export type ResumedConversation = { lines: Array<{ itemId: string; speaker: "agent" | "customer"; text: string }>; note: string | null; respond: boolean; answeredAt: Date | null };

export type LiveConversation = {
  callId: string;
  session: RealtimeSession | null;
  /** What the bridge has measured so far on this call (the benchmark reads it). */
  quality: CallQualityRecorder;
  /** Resolves when the media stream is over and everything was flushed. */
  ended: Promise<void>;
  /**
   * Ends the conversation from our side. `crash` emulates the process dying (tests): nothing more is written, the
   * model connection and the media socket just drop.
   */
  abort(options?: { crash?: boolean }): void;
};
