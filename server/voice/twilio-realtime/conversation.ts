import { TwilioRealtimeTransportLayer } from "@openai/agents-extensions";
import { backgroundResult, RealtimeAgent, RealtimeSession, tool, type RealtimeAgentConfiguration, type RealtimeItem } from "@openai/agents-realtime";
import type WebSocket from "ws";
import { z } from "zod";
import { answeredByClasses, type BridgeQuality } from "@/db/schema/call-quality";
import { answeredByActionFor, answeredByClassOfAmd, screenerAnswerOf } from "@/server/voice/call-quality";
import type { ToolCallResult, PlaceCallRequest } from "@/server/voice/types";
import type { TranscriptLineInput } from "./call-state";
import { CALL_TOOLS } from "./call-tools";
import { buildCallInstructions } from "./instructions";
import { CallQualityRecorder } from "./quality-recorder";
import type { TwilioRealtimeSettings } from "./settings";
import { APOLOGY_MESSAGE } from "./twiml";
import { createStreamPrivacy } from "./stream-privacy";

/** A disclosure ready to be played: its exact text and that text spoken (µ-law). */
export type PreparedDisclosure = { kind: "identification" | "recordingNotice"; text: string; audio: Buffer };

/** What a conversation needs from the rest of the app; the media bridge wires them to Postgres and Twilio. */
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
   * Twilio's answering-machine verdict for the call (`human`, `machine_end_beep`, …, `fax`, `unknown`), wherever its
   * callback landed; `unknown` when none came in time. Rejects when `signal` aborts (the stream ended first).
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

/** How long the hand-over line may take before the transfer starts anyway (the model said nothing, or no `response.done`). */
const HANDOVER_LINE_TIMEOUT_MS = 12_000;
/** Keys the contact presses within this time reach the model as one message. */
const CONTACT_KEYS_GATHER_MS = 1200;

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

const PLAYBACK_DRAIN_TIMEOUT_MS = 15_000;

/**
 * The answer (docs/call-quality.md, "Greeting and answering machines"). The model hears the callee from the start.
 * With `greetingMode: on-answer` it greets at once (one `response.create` as soon as it is connected), but turn
 * detection creates no response until Twilio's answering-machine detection has decided: on a person it answers what
 * was said since (if anything), on a machine it is cut off (`clear`) and never speaks again — the engine leaves the
 * agent's voicemail message after the beep, whole, or hangs up (engine.ts, `amd`). A voicemail box records from its
 * beep, and AMD (DetectMessageEnd) decides after the beep, but the greeting is cut long before: the machine's own
 * greeting talking over it interrupts it (server VAD), so nothing of the agent lands between the beep and the
 * message. With `wait-for-callee` nothing is said before the verdict, as before. A partial `session.update`: the
 * Realtime API keeps every field not named.
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
  /** Sends our own message to Twilio (the disclosures' audio, `clear`) the way the transport's messages go. */
  sendToTwilio: (data: string) => void;
  /** Registers the listener of every message our side sends to Twilio. */
  observeTwilioSends: (listener: (data: string) => void) => void;
  callId: string;
  streamSid: string;
  callSid: string;
  settings: Pick<TwilioRealtimeSettings, "quality"> & { openai: Pick<TwilioRealtimeSettings["openai"], "apiKey" | "model" | "realtimeUrl"> };
  hooks: ConversationHooks;
  now: () => Date;
  log: (message: string, error?: unknown) => void;
  /** The `resume` parameter of the stream (`digits:…`, `transfer:…`): the call's conversation goes on. */
  resume?: string | null;
}): LiveConversation {
  const { ws, transport, callId, hooks, log } = params;
  /** Added to the media clock's offsets: a resumed stream's clock starts again at 0, the call's goes on. */
  let clockOffsetMs = 0;
  let session: RealtimeSession | null = null;
  let closingByUs = false;
  let failed = false;
  let audioChunksSent = 0;
  let audioMarksBack = 0;
  const saved = new Set<string>();
  const media = createStreamPrivacy({ ws, send: params.sendToTwilio, transport: transport as never, streamSid: params.streamSid });
  let writes: Promise<void> = Promise.resolve();
  let request: PlaceCallRequest | null = null;
  const quality = new CallQualityRecorder({ greetingMode: "on-answer", deadAirMs: params.settings.quality.deadAirMs });
  let conversationRan = false;
  params.observeTwilioSends((data) => quality.twilioSent(data));
  /** A committed user turn no response has started on yet (the verdict's `response.create` answers it). */
  let userTurnWaiting = false;
  let amdVerdict: Promise<string> | null = null;
  /** Aborted when the callee starts talking over disclosures said at once on answer. */
  let calleeTalkedOver: AbortController | null = null;
  /** The model's VAD hears the callee talking now. */
  let calleeSpeaking = false;

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
      const line: TranscriptLineInput = { itemId: item.itemId, speaker: item.role === "user" ? "customer" : "agent", text: text.trim(), offsetMs: timing.startMs + clockOffsetMs, endOffsetMs: timing.endMs === null ? null : timing.endMs + clockOffsetMs };
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

  /** A transfer waiting for the model's hand-over line to be said and played (the response after the tool's result). */
  let handover: { start: () => Promise<void>; responseId: string | null; started: boolean } | null = null;
  const runHandover = () => {
    const pending = handover;
    if (!pending || pending.started) return;
    pending.started = true;
    void (async () => {
      await waitForPlayback();
      // The contact hung up during the hand-over line: nobody is dialed for a caller who has gone.
      if (ws.readyState !== ws.OPEN) return;
      await pending.start();
    })().catch((error: unknown) => {
      log(`transfer of ${callId} could not start`, describeFailure(error));
      closingByUs = false;
    });
  };
  /** Keys the contact pressed (Media Streams `dtmf` messages), gathered for a moment, then given to the model as text. */
  let contactKeys = "";
  let contactKeysTimer: NodeJS.Timeout | null = null;
  let conversing = false;
  const contactPressed = (digit: string) => {
    contactKeys = (contactKeys + digit).slice(-32);
    if (contactKeysTimer) clearTimeout(contactKeysTimer);
    contactKeysTimer = setTimeout(() => {
      const keys = contactKeys;
      contactKeys = "";
      if (!conversing || closingByUs || !session) return;
      session.sendMessage(`[The contact pressed ${keys.split("").join(" ")} on their phone's keypad.]`);
    }, CONTACT_KEYS_GATHER_MS);
  };

  transport.on(
    "*",
    (event: {
      type?: string;
      message?: { event?: string; mark?: { name?: string }; media?: { payload?: string }; dtmf?: { digit?: string } };
      item_id?: string;
      item?: { id?: string };
      response?: { id?: string };
      response_id?: string;
      delta?: string;
    }) => {
      if (event.type === "twilio_message") {
        if (event.message?.event === "media" && typeof event.message.media?.payload === "string") quality.inboundAudio(event.message.media.payload);
        else if (event.message?.event === "mark" && !String(event.message.mark?.name ?? "").startsWith("done:")) audioMarksBack += 1;
        else if (event.message?.event === "dtmf" && /^[0-9*#A-D]$/.test(event.message.dtmf?.digit ?? "")) contactPressed(event.message.dtmf!.digit!);
        return;
      }
      quality.modelEvent(event);
      if (event.type === "input_audio_buffer.speech_started") {
        calleeSpeaking = true;
        calleeTalkedOver?.abort();
      }
      if (event.type === "input_audio_buffer.speech_stopped") calleeSpeaking = false;
      if (event.type === "input_audio_buffer.committed") userTurnWaiting = true;
      if (event.type === "response.created") userTurnWaiting = false;
      if (handover && !handover.started && event.type === "response.created" && !handover.responseId && event.response?.id) handover.responseId = event.response.id;
      if (handover && event.type === "response.done" && event.response?.id && event.response.id === handover.responseId) runHandover();
    },
  );

  let resolveEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  /** Aborted when the media stream is gone: nothing started for this call may outlive it. */
  const streamGone = new AbortController();

  let crashed = false;
  ws.on("close", () => {
    closingByUs = true;
    streamGone.abort();
    if (contactKeysTimer) clearTimeout(contactKeysTimer);
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
      await hooks
        .streamEnded(callId, params.streamSid, { quality: conversationRan ? quality.finish() : null, media: envelope ? { envelope: envelope.bytes, envelopeStartMs: envelope.startMs } : null })
        .catch((error: unknown) => log(`stream end of ${callId} not recorded`, error));
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
    const resumed = params.resume && hooks.resume ? await hooks.resume(current, params.resume).catch(() => null) : null;
    // A resumed conversation keeps one clock: its turns are placed after the ones already stored.
    if (resumed?.answeredAt) clockOffsetMs = Math.max(0, Date.now() - resumed.answeredAt.getTime());
    for (const line of resumed?.lines ?? []) saved.add(line.itemId);
    const greetingMode = current.agent.voice.greetingMode ?? "on-answer";
    quality.greetingMode = greetingMode;
    await hooks.streamStarted(callId, params.streamSid);
    // Spoken (text to speech) while the model connects and Twilio's AMD listens (not again on a resumed stream).
    const disclosures = resumed
      ? Promise.resolve([] as PreparedDisclosure[])
      : hooks.prepareDisclosures(current).catch((error: unknown) => {
          log(`call ${callId}: the disclosures could not be prepared`, describeFailure(error));
          return null;
        });
    /** Tools run while the contact waits: their time is counted as held, not as the model's. */
    const timed = <T>(run: () => Promise<T>) => async () => {
      const done = quality.toolStarted();
      try {
        return await run();
      } finally {
        done();
      }
    };
    /** Cuts the agent off (our own `clear`: not counted as the contact's interruption) and ends the call our way. */
    const endForAnswerer = (ending: { reason: string; say: string | null }) => {
      closingByUs = true;
      quality.ourInterruption(() => transport.interrupt());
      void hooks.hangUp(callId, { reason: ending.reason, say: ending.say }).catch((error: unknown) => log(`hang-up of ${callId} failed`, error));
    };
    const tools: NonNullable<RealtimeAgentConfiguration["tools"]> = [
      tool({
        name: "report_answered_by",
        description:
          "Call it once, as soon as you can tell who or what answered: a person, a voicemail greeting (machine), a phone menu (ivr), an automated call screener asking who is calling and why (screener), or a fax tone. Its result tells you what to do next.",
        parameters: z.object({ answeredBy: z.enum(answeredByClasses.filter((answeredBy) => answeredBy !== "unknown") as ["human", "machine", "fax", "ivr", "screener"]).describe("Who or what answered the call.") }),
        execute: async ({ answeredBy }) => {
          quality.classified(answeredBy);
          const action = answeredByActionFor(current.agent.voice.answeredByActions, answeredBy);
          if (action === "converse") return JSON.stringify({ ok: true, action, message: "Carry on the conversation." });
          if (action === "answer-screener") {
            const say = screenerAnswerOf({ name: current.agent.name, callPurpose: current.agent.voice.callPurpose });
            return JSON.stringify({ ok: true, action, say, message: "Say exactly `say` to the screener, then wait for the person to pick up and continue the call." });
          }
          if (action === "leave-message") {
            // A machine: Twilio's AMD (DetectMessageEnd) hears the beep; when it says machine, the engine leaves the
            // message itself. When it heard a person (or nothing), we leave it now: the model heard the greeting end.
            const verdict = answeredByClassOfAmd(await Promise.race([amdVerdict ?? Promise.resolve("unknown"), new Promise<string>((resolve) => setTimeout(() => resolve("unknown"), 15_000))]).catch(() => "unknown"));
            if (verdict !== "machine" && verdict !== "fax") endForAnswerer({ reason: "voicemail", say: current.agent.voice.voicemailMessage });
            else closingByUs = true;
            return backgroundResult("A message is left; say nothing more.");
          }
          endForAnswerer({ reason: `answered-by-${answeredBy}`, say: null });
          return backgroundResult("The call is being ended; say nothing more.");
        },
      }),
      tool({
        name: "book_meeting",
        ...CALL_TOOLS.book_meeting,
        execute: async ({ preferredStartTime }) => timed(async () => JSON.stringify(await hooks.bookMeeting(current, params.callSid, { preferredStartTime })))(),
      }),
      tool({
        name: "opt_out",
        ...CALL_TOOLS.opt_out,
        execute: async () => timed(async () => JSON.stringify(await hooks.optOut(current)))(),
      }),
      tool({
        name: "stop_recording",
        description: "The contact does not want the call recorded: stop the recording now (the call goes on unrecorded), then confirm it to them.",
        parameters: z.object({ reason: z.string().nullable().describe("What the contact said, in a few words.") }),
        execute: async ({ reason }) => JSON.stringify(await hooks.stopRecording(current, { offsetMs: media.now() + clockOffsetMs, reason: reason ?? "the contact objected" })),
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
    if (hooks.transfer && current.agent.transfer) {
      const transfer = hooks.transfer;
      tools.push(
        tool({
          name: "transfer_call",
          description: "Hand the call to a person: one of the agent's transfer targets. Returns whether it goes ahead; if not, tell the caller and offer the fallback it names.",
          parameters: z.object({
            target: z.string().describe("The label of the transfer target (see the instructions)."),
            reason: z.string().describe("Why the caller wants a person, in one sentence: the person hears it before being put through."),
          }),
          execute: async ({ target, reason }) => {
            const decision = await transfer(current, { callSid: params.callSid, target, reason });
            if (decision.start) {
              // The transfer starts once the model's hand-over line (the response to this result) has played.
              closingByUs = true;
              handover = { start: decision.start, responseId: null, started: false };
              setTimeout(runHandover, HANDOVER_LINE_TIMEOUT_MS).unref?.();
            }
            return JSON.stringify(decision.result);
          },
        }),
      );
    }
    if (hooks.pressDigits) {
      const pressDigits = hooks.pressDigits;
      tools.push(
        tool({
          name: "press_digits",
          description: "Press keys on the phone's keypad (DTMF), e.g. to choose an option in a company's phone menu or dial an extension. You cannot hear while the tones play; then keep listening.",
          parameters: z.object({
            digits: z.string().describe("The keys: 0-9, * and #; w waits half a second."),
            reason: z.string().nullable().describe("The menu option chosen, in a few words."),
          }),
          execute: async ({ digits, reason }) => {
            const refused = hooks.checkDigits?.(digits) ?? null;
            if (refused) return JSON.stringify(refused);
            closingByUs = true;
            void (async () => {
              await waitForPlayback();
              await pressDigits(callId, { digits, reason });
            })().catch((error: unknown) => log(`pressing keys on ${callId} failed`, describeFailure(error)));
            return backgroundResult(`Pressing ${digits}.`);
          },
        }),
      );
    }
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
    if (resumed) {
      // The same conversation as before the stream was interrupted: its turns, then what happened meanwhile.
      const stamp = Date.now().toString(36);
      resumed.lines.forEach((line, index) => {
        const role = line.speaker === "agent" ? "assistant" : "user";
        const content = [{ type: role === "assistant" ? "output_text" : "input_text", text: line.text }];
        const id = `h${index}_${stamp}`.slice(0, 32);
        saved.add(id);
        transport.sendEvent({ type: "conversation.item.create", item: { id, type: "message", role, content } });
      });
      if (resumed.note) {
        const id = `note_${stamp}`;
        saved.add(id);
        transport.sendEvent({ type: "conversation.item.create", item: { id, type: "message", role: "system", content: [{ type: "input_text", text: resumed.note }] } });
      }
    }
    params.releaseMedia();
    conversationRan = true;
    amdVerdict = hooks.answeredBy(callId, streamGone.signal);
    /** Our own playback stops when the stream is gone or a machine answered (the engine leaves the message then). */
    const machineHeard = new AbortController();
    amdVerdict.then(
      (result) => /^(machine|fax)/.test(result) && machineHeard.abort(),
      () => {},
    );
    const stopPlaying = AbortSignal.any([streamGone.signal, machineHeard.signal]);
    /**
     * The disclosures first, exactly as written, before the model may say anything (docs/compliance.md); a call
     * whose disclosures cannot be spoken does not go on. `interruptible`: said at once on answer, they stop when the
     * callee starts talking (a voicemail greeting, or a person's "Hello?") and are said again, whole, after a person's
     * verdict. Only disclosures played to the end are recorded as spoken.
     */
    const speakDisclosures = async (interruptible: boolean): Promise<"done" | "interrupted" | "stopped"> => {
      const prepared = await disclosures;
      if (!prepared) {
        await fail("disclosure-unavailable", "The call's disclosures could not be spoken, so the call was ended before the agent said anything.");
        return "stopped";
      }
      // Not started over a callee already talking (a voicemail greeting under way): after the verdict, then.
      if (interruptible && calleeSpeaking) return "interrupted";
      const talkedOver = new AbortController();
      if (interruptible) calleeTalkedOver = talkedOver;
      const signal = AbortSignal.any([stopPlaying, talkedOver.signal]);
      try {
        for (const disclosure of prepared) {
          if (closingByUs || failed || stopPlaying.aborted) return "stopped";
          quality.ourAudioPlayed(disclosure.audio.length / 8);
          const played = await media.play(disclosure.audio, signal);
          if (stopPlaying.aborted) return "stopped";
          if (talkedOver.signal.aborted) {
            // The callee talked over us and we stopped: an interruption like any other (call quality counts it).
            media.clear();
            return "interrupted";
          }
          await hooks.disclosureSpoken(current, { kind: disclosure.kind, offsetMs: played.startMs + clockOffsetMs }).catch((error: unknown) => log(`disclosure of ${callId} not recorded`, error));
          const line: TranscriptLineInput = { itemId: `disclosure:${disclosure.kind}`, speaker: "agent", text: disclosure.text, offsetMs: played.startMs + clockOffsetMs, endOffsetMs: played.endMs + clockOffsetMs };
          writes = writes.then(() => hooks.saveLine(current, line)).catch((error: unknown) => log(`transcript line of ${callId} not stored`, error));
        }
      } finally {
        if (calleeTalkedOver === talkedOver) calleeTalkedOver = null;
      }
      return closingByUs || failed || stopPlaying.aborted ? "stopped" : "done";
    };
    // `on-answer`: the greeting starts at once — the disclosures, then the model's introduction; a machine's verdict
    // cuts both off. `wait-for-callee`, disclosures talked over, and a resumed stream (which does not greet again and
    // has nothing to disclose again): after a person's verdict.
    const greetsAtOnce = greetingMode === "on-answer" && !resumed;
    let greeted = false;
    if (greetsAtOnce && (await speakDisclosures(true)) === "done" && !closingByUs && !failed) {
      greeted = true;
      transport.sendEvent({ type: "response.create" });
    }
    let verdict: string;
    try {
      verdict = await amdVerdict;
    } catch {
      return;
    }
    quality.amdVerdict(verdict);
    if (/^(machine|fax)/.test(verdict)) {
      // Silent for good; whatever is still playing of the greeting (ours or the model's) stops now.
      if (!closingByUs && !failed) {
        quality.ourInterruption(() => {
          media.clear();
          transport.interrupt();
        });
      }
      return;
    }
    if (closingByUs || failed) return;
    if (!greeted && (await speakDisclosures(false)) !== "done") return;
    if (closingByUs || failed || streamGone.signal.aborted) return;
    conversing = true;
    transport.sendEvent(RESPONSES_ON);
    // After pressed keys the agent listens (the menu or a person speaks next); greeted already and nothing said since:
    // turn detection answers the next utterance; otherwise answer (or greet) now.
    if (resumed && !resumed.respond) return;
    if (greeted && !userTurnWaiting) return;
    quality.responseRequested();
    transport.sendEvent({ type: "response.create" });
  })().catch((error: unknown) => {
    log(`conversation of ${callId} failed`, describeFailure(error));
    void fail("realtime-unavailable", "The conversation could not be started.");
  });

  return {
    callId,
    quality,
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
