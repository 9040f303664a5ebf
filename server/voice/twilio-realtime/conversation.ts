import { TwilioRealtimeTransportLayer } from "@openai/agents-extensions";
import { backgroundResult, RealtimeAgent, RealtimeSession, tool, type RealtimeItem } from "@openai/agents-realtime";
import type WebSocket from "ws";
import { z } from "zod";
import type { ToolCallResult, PlaceCallRequest } from "@/server/voice/types";
import type { TranscriptLineInput } from "./call-state";
import { CALL_TOOLS } from "./call-tools";
import { buildCallInstructions } from "./instructions";
import type { TwilioRealtimeSettings } from "./settings";
import { APOLOGY_MESSAGE } from "./twiml";
import { createStreamPrivacy } from "./stream-privacy";

/** A disclosure ready to be played: its exact text and that text spoken (µ-law). */
export type PreparedDisclosure = { kind: "identification" | "recordingNotice"; text: string; audio: Buffer };

/** What a conversation needs from the rest of the app; the media bridge wires them to Postgres and Twilio. */
export type ConversationHooks = {
  load(callId: string): Promise<{ request: PlaceCallRequest; callSid: string | null } | null>;
  streamStarted(callId: string, streamSid: string): Promise<void>;
  /** The stream is over; `media` is the callee's loudness envelope (for aligning the recording before redaction). */
  streamEnded(callId: string, media?: { envelope: Uint8Array; envelopeStartMs: number } | null): Promise<void>;
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
   * Twilio's answering-machine verdict for the call (`human`, `machine_end_beep`, …, `fax`, `unknown`), wherever its
   * callback landed; `unknown` when none came in time. Rejects when `signal` aborts (the stream ended first).
   */
  answeredBy(callId: string, signal: AbortSignal): Promise<string>;
  /** The session is created (not yet connected): a browser test call follows its tool calls and audio from here. */
  sessionCreated?(session: RealtimeSession, request: PlaceCallRequest): void;
};

export type LiveConversation = {
  callId: string;
  session: RealtimeSession | null;
  /** Resolves when the media stream is over and everything was flushed. */
  ended: Promise<void>;
  /**
   * Ends the conversation from our side. `crash` emulates the process dying (tests): nothing more is written, the
   * model connection and the media socket just drop.
   */
  abort(options?: { crash?: boolean }): void;
};

const PLAYBACK_DRAIN_TIMEOUT_MS = 15_000;

/**
 * The model hears the callee from the start but answers nothing until Twilio's answering-machine detection has
 * decided: on a person it answers what it heard (or greets), on a machine it never speaks — the engine leaves the
 * agent's voicemail message after the beep, whole, or hangs up (engine.ts, `amd`). Turn detection then creates
 * responses as usual. A partial `session.update`: the Realtime API keeps every field not named.
 */
const RESPONSES_ON = { type: "session.update", session: { type: "realtime", audio: { input: { turn_detection: { type: "server_vad", create_response: true, interrupt_response: true } } } } } as const;

/** What a failed connect or transport error was, as an Error a log line can carry (the SDK rejects with events too). */
export function describeFailure(error: unknown): Error {
  if (error instanceof Error) return error;
  const inner = (error as { error?: unknown } | null)?.error;
  if (inner instanceof Error) return inner;
  const message = (error as { message?: unknown } | null)?.message ?? (inner as { message?: unknown } | null)?.message;
  if (typeof message === "string" && message) return new Error(message);
  const type = (error as { type?: unknown } | null)?.type;
  return new Error(typeof type === "string" ? `${type} event` : String(error));
}

/**
 * One call's conversation: the Twilio media WebSocket bridged to an OpenAI Realtime session through the SDK's
 * `TwilioRealtimeTransportLayer` (G.711 µ-law both ways, interruptions via marks). Turns are stored as they complete;
 * `end_call` hangs up once the goodbye has been played (all audio marks back); if the model cannot be reached at the
 * answer or the connection drops mid-call, the callee hears an apology, the call is hung up and ends `failed`.
 */
export function startConversation(params: {
  ws: WebSocket;
  transport: TwilioRealtimeTransportLayer;
  /** Lets the caller's audio held since the stream started reach the model (once it is connected). */
  releaseMedia: () => void;
  callId: string;
  streamSid: string;
  callSid: string;
  settings: { openai: Pick<TwilioRealtimeSettings["openai"], "apiKey" | "model" | "realtimeUrl"> };
  hooks: ConversationHooks;
  now: () => Date;
  log: (message: string, error?: unknown) => void;
}): LiveConversation {
  const { ws, transport, callId, hooks, log } = params;
  let session: RealtimeSession | null = null;
  let closingByUs = false;
  let failed = false;
  let audioChunksSent = 0;
  let audioMarksBack = 0;
  const saved = new Set<string>();
  const media = createStreamPrivacy({ ws, transport: transport as never, streamSid: params.streamSid });
  let writes: Promise<void> = Promise.resolve();
  let request: PlaceCallRequest | null = null;

  const persist = (history: RealtimeItem[]) => {
    if (!request) return;
    const current = request;
    for (const item of history) {
      if (item.type !== "message" || saved.has(item.itemId)) continue;
      if (item.role !== "user" && item.role !== "assistant") continue;
      const part = item.content[0] as { transcript?: string | null; text?: string } | undefined;
      const text = part?.transcript ?? part?.text ?? null;
      const complete = item.role === "user" ? typeof text === "string" : item.status !== "in_progress" && typeof text === "string";
      if (!complete || !text?.trim()) continue;
      saved.add(item.itemId);
      // Offsets on the stream's media clock (Twilio's timestamps): where the turn is in the recording, once aligned.
      const timing = media.turnTiming(item.itemId, item.role);
      const line: TranscriptLineInput = { itemId: item.itemId, speaker: item.role === "user" ? "customer" : "agent", text: text.trim(), offsetMs: timing.startMs, endOffsetMs: timing.endMs };
      writes = writes.then(() => hooks.saveLine(current, line)).catch((error: unknown) => log(`transcript line of ${callId} not stored`, error));
    }
  };

  const fail = async (reason: "realtime-unavailable" | "realtime-lost" | "disclosure-unavailable", message: string) => {
    if (failed || closingByUs) return;
    failed = true;
    log(`call ${callId}: ${message}`);
    await hooks.hangUp(callId, { reason, say: APOLOGY_MESSAGE, failure: message }).catch((error: unknown) => log(`hang-up of ${callId} failed`, error));
  };

  const waitForPlayback = async () => {
    const deadline = Date.now() + PLAYBACK_DRAIN_TIMEOUT_MS;
    while (audioMarksBack < audioChunksSent && Date.now() < deadline && ws.readyState === ws.OPEN) await new Promise((resolve) => setTimeout(resolve, 25));
  };

  transport.on("*", (event: { type?: string; message?: { event?: string; mark?: { name?: string } }; item_id?: string; item?: { id?: string } }) => {
    if (event.type === "twilio_message" && event.message?.event === "mark" && !String(event.message.mark?.name ?? "").startsWith("done:")) audioMarksBack += 1;
  });

  let resolveEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  /** Aborted when the media stream is gone: nothing started for this call may outlive it. */
  const streamGone = new AbortController();

  let crashed = false;
  ws.on("close", () => {
    closingByUs = true;
    streamGone.abort();
    if (crashed) {
      session?.close();
      resolveEnded();
      return;
    }
    void (async () => {
      if (session) persist(session.history);
      session?.close();
      await writes;
      const envelope = media.envelope();
      await hooks.streamEnded(callId, envelope ? { envelope: envelope.bytes, envelopeStartMs: envelope.startMs } : null).catch((error: unknown) => log(`stream end of ${callId} not recorded`, error));
      resolveEnded();
    })();
  });

  void (async () => {
    const loaded = await hooks.load(callId);
    if (!loaded) {
      ws.close(1008, "unknown call");
      return;
    }
    request = loaded.request;
    const current = request;
    await hooks.streamStarted(callId, params.streamSid);
    // Spoken (text to speech) while the model connects and Twilio's AMD listens; played once a person is on the line.
    const disclosures = hooks.prepareDisclosures(current).catch((error: unknown) => {
      log(`call ${callId}: the disclosures could not be prepared`, describeFailure(error));
      return null;
    });
    const tools = [
      tool({
        name: "book_meeting",
        ...CALL_TOOLS.book_meeting,
        execute: async ({ preferredStartTime }) => JSON.stringify(await hooks.bookMeeting(current, params.callSid, { preferredStartTime })),
      }),
      tool({
        name: "opt_out",
        ...CALL_TOOLS.opt_out,
        execute: async () => JSON.stringify(await hooks.optOut(current)),
      }),
      tool({
        name: "stop_recording",
        description: "The contact does not want the call recorded: stop the recording now (the call goes on unrecorded), then confirm it to them.",
        parameters: z.object({ reason: z.string().nullable().describe("What the contact said, in a few words.") }),
        execute: async ({ reason }) => JSON.stringify(await hooks.stopRecording(current, { offsetMs: media.now(), reason: reason ?? "the contact objected" })),
      }),
      tool({
        name: "end_call",
        ...CALL_TOOLS.end_call,
        execute: async () => {
          closingByUs = true;
          void (async () => {
            await waitForPlayback();
            await hooks.hangUp(callId, { reason: "end_call" });
          })();
          return backgroundResult("The call is being ended.");
        },
      }),
    ];
    // The callee may have hung up while the call was loaded: then no model session is opened at all.
    if (streamGone.signal.aborted) return;
    const agent = new RealtimeAgent({ name: current.agent.name, instructions: buildCallInstructions(current, params.now()), tools });
    session = new RealtimeSession(agent, {
      transport,
      model: params.settings.openai.model,
      tracingDisabled: true,
      config: {
        audio: {
          input: { transcription: { model: "gpt-4o-mini-transcribe" }, turnDetection: { type: "server_vad", createResponse: false, interruptResponse: true } },
          output: { voice: current.agent.voice.voice },
        },
      },
    });
    hooks.sessionCreated?.(session, current);
    session.on("history_updated", (history) => persist(history));
    session.on("audio", () => {
      audioChunksSent += 1;
    });
    try {
      await session.connect({ apiKey: params.settings.openai.apiKey, url: params.settings.openai.realtimeUrl });
    } catch (error) {
      log(`call ${callId}: realtime connect failed`, describeFailure(error));
      session.close();
      await fail("realtime-unavailable", "The realtime model could not be reached when the call was answered.");
      return;
    }
    // Connected after the callee hung up (the close handler found no session to close): close it now.
    if (streamGone.signal.aborted) {
      session.close();
      return;
    }
    transport.on("disconnected", () => {
      if (!closingByUs && ws.readyState === ws.OPEN) void fail("realtime-lost", "The connection to the realtime model was lost during the call.");
    });
    params.releaseMedia();
    let verdict: string;
    try {
      verdict = await hooks.answeredBy(callId, streamGone.signal);
    } catch {
      return;
    }
    if (closingByUs || failed || /^(machine|fax)/.test(verdict)) return;
    // The disclosures first, exactly as written, before the model may say anything; a call without them does not go on.
    const prepared = await disclosures;
    if (!prepared) {
      await fail("disclosure-unavailable", "The call's disclosures could not be spoken, so the call was ended before the agent said anything.");
      return;
    }
    for (const disclosure of prepared) {
      if (closingByUs || failed || streamGone.signal.aborted) return;
      const played = await media.play(disclosure.audio, streamGone.signal);
      if (streamGone.signal.aborted) return;
      await hooks.disclosureSpoken(current, { kind: disclosure.kind, offsetMs: played.startMs }).catch((error: unknown) => log(`disclosure of ${callId} not recorded`, error));
      const line: TranscriptLineInput = { itemId: `disclosure:${disclosure.kind}`, speaker: "agent", text: disclosure.text, offsetMs: played.startMs, endOffsetMs: played.endMs };
      writes = writes.then(() => hooks.saveLine(current, line)).catch((error: unknown) => log(`transcript line of ${callId} not stored`, error));
    }
    if (closingByUs || failed || streamGone.signal.aborted) return;
    transport.sendEvent(RESPONSES_ON);
    transport.sendEvent({ type: "response.create" });
  })().catch((error: unknown) => {
    log(`conversation of ${callId} failed`, describeFailure(error));
    void fail("realtime-unavailable", "The conversation could not be started.");
  });

  return {
    callId,
    get session() {
      return session;
    },
    ended,
    abort(options) {
      if (options?.crash) {
        crashed = true;
        request = null;
      }
      ws.terminate();
    },
  };
}
