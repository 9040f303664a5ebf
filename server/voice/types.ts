import type { TransferConfig } from "@/db/schema/agents";
import type { CallQuality } from "@/db/schema/call-quality";
import type { AgentVoiceSettings } from "./agent-voice-settings";
import type { CallPrivacy } from "@/server/services/privacy/call-privacy";
import type { RedactedSpan } from "@/db/schema/privacy";

/**
 * The voice engine: dials a number and runs the conversation. The embedded default is the deterministic simulator
 * (`server/voice/simulator`); a real telephony + realtime-LLM provider plugs in behind the same type.
 *
 * Protocol: `placeCall` only starts the call. Everything that happens afterwards reaches us as provider events
 * posted (signed) to `POST /api/voice/events`, the same entry point a real provider's webhook would hit:
 * `call.ringing`, `call.answered`, `call.tool` (a tool invocation during the conversation, answered synchronously)
 * and `call.ended` (with duration, transcript and recording).
 */

/** What the conversation turned into at the telephony level; the analyser decides the rest. */
export const callDispositions = ["answered", "voicemail", "busy", "no-answer", "invalid-number", "failed"] as const;
export type CallDisposition = (typeof callDispositions)[number];

export type VoiceExtractionGoal = {
  slug: string;
  displayName: string;
  description: string;
  type: string;
  dropdownOptions?: string[] | null;
};

export type PlaceCallRequest = {
  /** Our call ID. Also the idempotency key: placing the same callId twice never dials twice. */
  callId: string;
  organizationId: string;
  from: string;
  to: string;
  toExt: string;
  agent: {
    agentId: string;
    name: string;
    prompt: string;
    hasBookingTool: boolean;
    goals: VoiceExtractionGoal[];
    /** Real voice engine settings (the simulator ignores them). */
    voice: AgentVoiceSettings;
    /** Handing the call to a person (null: never); its hours are in `transfer.timezone` or the agent's first zone. */
    transfer?: TransferConfig | null;
    /** Where to head in a phone menu; null = a person. */
    phoneMenuGoal?: string | null;
    /** The agent's first timezone. */
    timezone?: string;
  };
  contact: { name: string; timezone: string; email: string | null; variables: Record<string, string> };
  /**
   * Set when the contact called us back (an inbound call, docs/sequences.md "Callbacks"): the sequence's context for
   * the greeting. `from` is then our number they called, `to` the caller.
   */
  callback?: { lastSummary: string | null; lastCalledAt: string | null };
  /** Disclosures to speak first, whether to record, what to redact (server/services/privacy). */
  privacy: CallPrivacy;
};

export type PlaceCallResult = { providerCallId: string; alreadyPlaced: boolean };

/**
 * The provider's own record of a call (Twilio's Call resource, the simulator's state), which the watchdog asks for
 * before it gives up on a call whose events are late (docs/call-engine.md "Watchdog"):
 * - `active`: queued, ringing or in progress there — the call may still be in the air;
 * - `ended`: over there, with what the provider knows of it (its events may still be on their way);
 * - `unknown`: the provider has no such call (it lost it, or the process that ran it is gone).
 * An engine that cannot be asked right now throws: the watchdog then waits.
 */
export type ProviderCallState =
  | { state: "active" }
  | { state: "ended"; endedAt: string; disposition: CallDisposition; durationSeconds: number }
  | { state: "unknown" };

export type VoiceEngine = {
  kind: string;
  placeCall(request: PlaceCallRequest): Promise<PlaceCallResult>;
  /**
   * Longest wall-clock time a call can take from dial to its `call.ended` event. The watchdog fails calls that
   * stay in `Calling` longer than this (plus a margin).
   */
  maxCallWallSeconds: number;
  /**
   * Ends a call in progress on our side (the console's "Hang up"): the call then reports `call.ended` as usual, with
   * what was said so far. Resolves false when this engine has no such live call (already over, or another instance's).
   */
  endCall?(callId: string): Promise<boolean>;
  /** The provider's record of a call we placed (see ProviderCallState); throws when the provider cannot be asked. */
  callState(call: { callId: string; providerCallId: string }): Promise<ProviderCallState>;
};

export type RecordingPayload = {
  contentType: string;
  /** Inline audio (the simulator). */
  contentBase64?: string;
  /** Audio to download from the provider (real providers). */
  url?: string;
  durationSeconds: number;
};

type EventBase = { providerCallId: string; callId: string; occurredAt: string };

export type VoiceTranscriptLine = { itemId: string; speaker: "agent" | "customer"; text: string; offsetMs: number; endOffsetMs?: number | null };

export type VoiceProviderEvent =
  | (EventBase & { type: "call.ringing" })
  | (EventBase & { type: "call.answered" })
  | (EventBase & { type: "call.tool"; tool: "book_meeting"; arguments: Record<string, unknown> })
  /**
   * A transfer the provider carried out (the simulator): `arguments` say how it went — targetLabel, mode, answered,
   * humanLegSeconds, outcome — and the entry point records it as the call's `transfer_call` action.
   */
  | (EventBase & { type: "call.tool"; tool: "transfer_call"; arguments: Record<string, unknown> })
  /** One spoken turn while the call is live (stored in call_transcript_lines, once per `itemId`). */
  | (EventBase & { type: "call.transcript"; itemId: string; speaker: "agent" | "customer"; text: string; offsetMs: number; endOffsetMs?: number | null })
  /** Several spoken turns at once (a provider that reports lines in batches; the app's simulator, once a second). */
  | (EventBase & { type: "call.transcript.batch"; lines: VoiceTranscriptLine[] })
  /** A disclosure was spoken (exactly its planned text), `offsetMs` after the answer. */
  | (EventBase & { type: "call.disclosure"; kind: "identification" | "recordingNotice"; offsetMs: number; via: "call" | "voicemail" })
  /** The contact objected to the recording: the provider stopped it for the rest of the call. */
  | (EventBase & { type: "call.recording"; state: "declined"; offsetMs: number; reason: string })
  | (EventBase & {
      type: "call.ended";
      disposition: CallDisposition;
      durationSeconds: number;
      transcript: string | null;
      /** Absent when the call has no retrievable audio. */
      recording: RecordingPayload | null;
      errorMessage?: string;
      /** What the engine measured on the call (docs/call-quality.md); null or absent when nothing was. */
      quality?: CallQuality | null;
      /** Spans of `recording` the provider already silenced because the transcript was redacted there (recording ms). */
      redactedSpans?: RedactedSpan[];
    });

export type VoiceCallEndedEvent = Extract<VoiceProviderEvent, { type: "call.ended" }>;

/** What the entry point answers to a `call.tool` event (the voice agent speaks from it). */
export type ToolCallResult = { ok: boolean; message: string; data?: Record<string, unknown> };
