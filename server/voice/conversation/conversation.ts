import { RealtimeAgent, RealtimeSession } from "@openai/agents-realtime";
import { HeldLeg, type LegSend } from "./held-leg";
import { APOLOGY_MESSAGE, type ConversationHooks, type ConversationSettings, type LiveConversation, type PreparedDisclosure, type TranscriptLineInput } from "./hooks";
import { buildCallInstructions } from "./instructions";
import type { MediaLeg } from "./media-leg";
import { CallQualityRecorder } from "./quality-recorder";
import { isDoneMark, MediaLegTransport } from "./realtime-transport";
import { ContactKeys, ConversationState, PlaybackCounter, TranscriptWriter } from "./state";
import { createStreamPrivacy } from "./stream-privacy";
import { buildTools, describeFailure, HandoverLine } from "./tools";

export type { ConversationHooks, ConversationSettings, LiveConversation, PreparedDisclosure, ResumedConversation, TranscriptLineInput } from "./hooks";
export { describeFailure } from "./tools";

/**
 * The answer (docs/call-quality.md, "Greeting and answering machines"). The model hears the callee from the start.
 * With `greetingMode: on-answer` it greets at once (one `response.create` as soon as it is connected), but turn
 * detection creates no response until the carrier's answering-machine detection has decided: on a person it answers what
 * was said since (if anything), on a machine it is cut off (`clear`) and never speaks again — the engine leaves the
 * agent's voicemail message after the beep, whole, or hangs up (the carrier's engine, e.g. twilio-realtime/engine.ts, `amd`). A voicemail box records from its
 * beep, and AMD (DetectMessageEnd) decides after the beep, but the greeting is cut long before: the machine's own
 * greeting talking over it interrupts it (server VAD), so nothing of the agent lands between the beep and the
 * message. With `wait-for-callee` nothing is said before the verdict, as before. A partial `session.update`: the
 * Realtime API keeps every field not named.
 */
const RESPONSES_ON = { type: "session.update", session: { type: "realtime", audio: { input: { turn_detection: { type: "server_vad", create_response: true, interrupt_response: true } } } } } as const;

/**
 * One call's conversation: a carrier's media leg (media-leg.ts) bridged to an OpenAI Realtime session through our
 * transport (realtime-transport.ts: G.711 µ-law both ways, interruptions via marks). Turns are stored as they
 * complete; `end_call` hangs up once the goodbye has been played (all audio marks back); if the model cannot be
 * reached at the answer or the connection drops mid-call, the callee hears an apology, the call is hung up and ends
 * `failed`.
 */
export function startConversation(params: {
  /** The call's media, started (its `start` has come). */
  leg: MediaLeg;
  callId: string;
  settings: ConversationSettings;
  hooks: ConversationHooks;
  now: () => Date;
  log: (message: string, error?: unknown) => void;
  /** The `resume` parameter of the stream (`digits:…`, `transfer:…`): the call's conversation goes on. */
  resume?: string | null;
  /** Sees everything the conversation sends on the leg (the listen-in tap, a test call's recording). */
  observeSends?: (sent: LegSend) => void;
}): LiveConversation {
  const { callId, hooks, log } = params;
  const streamId = params.leg.started?.streamId ?? "";
  const callSid = params.leg.started?.carrierCallId ?? "";
  // The caller's frames wait until the model is connected; every send is observed (call quality).
  const leg = new HeldLeg(params.leg);
  const transport = new MediaLegTransport({ leg });
  const state = new ConversationState();
  const playback = new PlaybackCounter();
  const media = createStreamPrivacy({ leg, transport: transport as never });
  const transcript = new TranscriptWriter({ callId, hooks, media, state, log });
  const quality = new CallQualityRecorder({ greetingMode: "on-answer", deadAirMs: params.settings.quality.deadAirMs });
  const handover = new HandoverLine({ callId, leg, playback, state, log });
  const contactKeys = new ContactKeys((keys) => {
    if (!state.conversing || state.closingByUs || !state.session) return;
    state.session.sendMessage(`[The contact pressed ${keys.split("").join(" ")} on their phone's keypad.]`);
  });

  leg.observeSends((sent) => {
    if (sent.kind === "audio") quality.agentAudioSent();
    else if (sent.kind === "clear") quality.playbackCleared();
  });
  if (params.observeSends) leg.observeSends(params.observeSends);
  leg.on("audio", (frame) => quality.inboundAudio(frame.audio));
  leg.on("mark", (name) => {
    if (!isDoneMark(name)) playback.back += 1;
  });
  leg.on("dtmf", (digit) => contactKeys.pressed(digit));
  transport.on("*", (event: { type?: string; response?: { id?: string }; response_id?: string; delta?: string }) => {
    quality.modelEvent(event);
    if (event.type === "input_audio_buffer.speech_started") {
      state.calleeSpeaking = true;
      state.calleeTalkedOver?.abort();
    }
    if (event.type === "input_audio_buffer.speech_stopped") state.calleeSpeaking = false;
    if (event.type === "input_audio_buffer.committed") state.userTurnWaiting = true;
    if (event.type === "response.created") state.userTurnWaiting = false;
    handover.modelEvent(event);
  });

  const fail = async (reason: "realtime-unavailable" | "realtime-lost" | "disclosure-unavailable", message: string) => {
    if (state.failed || state.closingByUs) return;
    state.failed = true;
    log(`call ${callId}: ${message}`);
    await hooks.hangUp(callId, { reason, say: APOLOGY_MESSAGE, failure: message }).catch((error: unknown) => log(`hang-up of ${callId} failed`, error));
  };

  let resolveEnded: () => void = () => {};
  const ended = new Promise<void>((resolve) => (resolveEnded = resolve));
  /** Aborted when the media leg is gone: nothing started for this call may outlive it. */
  const streamGone = new AbortController();

  leg.on("stop", () => {
    state.closingByUs = true;
    streamGone.abort();
    contactKeys.stop();
    const session = state.session;
    if (state.crashed) {
      session?.close();
      resolveEnded();
      return;
    }
    void (async () => {
      if (session) transcript.persist(session.history);
      session?.close();
      await transcript.flushed();
      const envelope = media.envelope();
      await hooks
        .streamEnded(callId, streamId, { quality: state.conversationRan ? quality.finish() : null, media: envelope ? { envelope: envelope.bytes, envelopeStartMs: envelope.startMs } : null })
        .catch((error: unknown) => log(`stream end of ${callId} not recorded`, error));
      resolveEnded();
    })();
  });

  void (async () => {
    const loaded = await hooks.load(callId);
    if (!loaded) {
      leg.close({ reason: "unknown call" });
      return;
    }
    state.request = loaded.request;
    const current = loaded.request;
    const resumed = params.resume && hooks.resume ? await hooks.resume(current, params.resume).catch(() => null) : null;
    // A resumed conversation keeps one clock: its turns are placed after the ones already stored.
    if (resumed?.answeredAt) state.clockOffsetMs = Math.max(0, Date.now() - resumed.answeredAt.getTime());
    for (const line of resumed?.lines ?? []) transcript.saved.add(line.itemId);
    const greetingMode = current.agent.voice.greetingMode ?? "on-answer";
    quality.greetingMode = greetingMode;
    await hooks.streamStarted(callId, streamId);
    // Spoken (text to speech) while the model connects and the carrier's AMD listens (not again on a resumed stream).
    const disclosures = resumed
      ? Promise.resolve([] as PreparedDisclosure[])
      : hooks.prepareDisclosures(current).catch((error: unknown) => {
          log(`call ${callId}: the disclosures could not be prepared`, describeFailure(error));
          return null;
        });
    const tools = buildTools({ callId, callSid, current, hooks, state, quality, media, transport, leg, playback, handover, log });
    // The callee may have hung up while the call was loaded: then no model session is opened at all.
    if (streamGone.signal.aborted) return;
    const agent = new RealtimeAgent({ name: current.agent.name, instructions: buildCallInstructions(current, params.now()), tools });
    const session = new RealtimeSession(agent, {
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
    state.session = session;
    session.on("history_updated", (history) => transcript.persist(history));
    session.on("audio", () => {
      playback.sent += 1;
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
      if (!state.closingByUs && leg.open) void fail("realtime-lost", "The connection to the realtime model was lost during the call.");
    });
    if (resumed) {
      // The same conversation as before the stream was interrupted: its turns, then what happened meanwhile.
      const stamp = Date.now().toString(36);
      resumed.lines.forEach((line, index) => {
        const role = line.speaker === "agent" ? "assistant" : "user";
        const content = [{ type: role === "assistant" ? "output_text" : "input_text", text: line.text }];
        const id = `h${index}_${stamp}`.slice(0, 32);
        transcript.saved.add(id);
        transport.sendEvent({ type: "conversation.item.create", item: { id, type: "message", role, content } });
      });
      if (resumed.note) {
        const id = `note_${stamp}`;
        transcript.saved.add(id);
        transport.sendEvent({ type: "conversation.item.create", item: { id, type: "message", role: "system", content: [{ type: "input_text", text: resumed.note }] } });
      }
    }
    leg.release();
    state.conversationRan = true;
    const amdVerdict = hooks.answeredBy(callId, streamGone.signal);
    state.amdVerdict = amdVerdict;
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
      if (interruptible && state.calleeSpeaking) return "interrupted";
      const talkedOver = new AbortController();
      if (interruptible) state.calleeTalkedOver = talkedOver;
      const signal = AbortSignal.any([stopPlaying, talkedOver.signal]);
      try {
        for (const disclosure of prepared) {
          if (state.closingByUs || state.failed || stopPlaying.aborted) return "stopped";
          quality.ourAudioPlayed(disclosure.audio.length / 8);
          const played = await media.play(disclosure.audio, signal);
          if (stopPlaying.aborted) return "stopped";
          if (talkedOver.signal.aborted) {
            // The callee talked over us and we stopped: an interruption like any other (call quality counts it).
            media.clear();
            return "interrupted";
          }
          await hooks.disclosureSpoken(current, { kind: disclosure.kind, offsetMs: played.startMs + state.clockOffsetMs }).catch((error: unknown) => log(`disclosure of ${callId} not recorded`, error));
          const line: TranscriptLineInput = { itemId: `disclosure:${disclosure.kind}`, speaker: "agent", text: disclosure.text, offsetMs: played.startMs + state.clockOffsetMs, endOffsetMs: played.endMs + state.clockOffsetMs };
          transcript.write(current, line);
        }
      } finally {
        if (state.calleeTalkedOver === talkedOver) state.calleeTalkedOver = null;
      }
      return state.closingByUs || state.failed || stopPlaying.aborted ? "stopped" : "done";
    };
    // `on-answer`: the greeting starts at once — the disclosures, then the model's introduction; a machine's verdict
    // cuts both off. `wait-for-callee`, disclosures talked over, and a resumed stream (which does not greet again and
    // has nothing to disclose again): after a person's verdict.
    const greetsAtOnce = greetingMode === "on-answer" && !resumed;
    let greeted = false;
    if (greetsAtOnce && (await speakDisclosures(true)) === "done" && !state.closingByUs && !state.failed) {
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
      if (!state.closingByUs && !state.failed) {
        quality.ourInterruption(() => {
          media.clear();
          transport.interrupt();
        });
      }
      return;
    }
    if (state.closingByUs || state.failed) return;
    if (!greeted && (await speakDisclosures(false)) !== "done") return;
    if (state.closingByUs || state.failed || streamGone.signal.aborted) return;
    state.conversing = true;
    transport.sendEvent(RESPONSES_ON);
    // After pressed keys the agent listens (the menu or a person speaks next); greeted already and nothing said since:
    // turn detection answers the next utterance; otherwise answer (or greet) now.
    if (resumed && !resumed.respond) return;
    if (greeted && !state.userTurnWaiting) return;
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
      return state.session;
    },
    ended,
    abort(options) {
      if (options?.crash) {
        state.crashed = true;
        state.request = null;
      }
      leg.close({ abrupt: true });
    },
  };
}
