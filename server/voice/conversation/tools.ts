import { backgroundResult, tool, type RealtimeAgentConfiguration } from "@openai/agents-realtime";
import { z } from "zod";
import { answeredByClasses } from "@/db/schema/call-quality";
import { answeredByActionFor, answeredByClassOfAmd, screenerAnswerOf } from "@/server/voice/call-quality";
import type { PlaceCallRequest } from "@/server/voice/types";
import { CALL_TOOLS } from "./call-tools";
import type { ConversationHooks } from "./hooks";
import type { MediaLeg } from "./media-leg";
import type { CallQualityRecorder } from "./quality-recorder";
import type { MediaLegTransport } from "./realtime-transport";
import type { ConversationState, PlaybackCounter } from "./state";
import type { StreamPrivacy } from "./stream-privacy";

/** How long the hand-over line may take before the transfer starts anyway (the model said nothing, or no `response.done`). */
const HANDOVER_LINE_TIMEOUT_MS = 12_000;

/** What a conversation's tools act on. */
export type ToolContext = {
  callId: string;
  callSid: string;
  current: PlaceCallRequest;
  hooks: ConversationHooks;
  state: ConversationState;
  quality: CallQualityRecorder;
  media: StreamPrivacy;
  transport: MediaLegTransport;
  leg: MediaLeg;
  playback: PlaybackCounter;
  handover: HandoverLine;
  log: (message: string, error?: unknown) => void;
};

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

/** A transfer waiting for the model's hand-over line to be said and played (the response after the tool's result). */
export class HandoverLine {
  private pending: { start: () => Promise<void>; responseId: string | null; started: boolean } | null = null;

  constructor(private readonly params: { callId: string; leg: MediaLeg; playback: PlaybackCounter; state: ConversationState; log: (message: string, error?: unknown) => void }) {}

  /** The transfer starts after the next response has played, or after 12 s. */
  await(start: () => Promise<void>) {
    this.pending = { start, responseId: null, started: false };
    setTimeout(() => this.run(), HANDOVER_LINE_TIMEOUT_MS).unref?.();
  }

  /** A model event: the hand-over line is the first response created after the tool's result. */
  modelEvent(event: { type?: string; response?: { id?: string } }) {
    const pending = this.pending;
    if (!pending) return;
    if (!pending.started && event.type === "response.created" && !pending.responseId && event.response?.id) pending.responseId = event.response.id;
    if (event.type === "response.done" && event.response?.id && event.response.id === pending.responseId) this.run();
  }

  private run() {
    const pending = this.pending;
    if (!pending || pending.started) return;
    pending.started = true;
    const { leg, playback, state, log, callId } = this.params;
    void (async () => {
      await playback.drained(() => leg.open);
      // The contact hung up during the hand-over line: nobody is dialed for a caller who has gone.
      if (!leg.open) return;
      await pending.start();
    })().catch((error: unknown) => {
      log(`transfer of ${callId} could not start`, describeFailure(error));
      state.closingByUs = false;
    });
  }
}

/** The tools the model may call on this call: who answered, booking, opt-out, recording, hang-up, transfer, keys. */
export function buildTools(ctx: ToolContext): NonNullable<RealtimeAgentConfiguration["tools"]> {
  const { callId, current, hooks, state, quality, media, transport, leg, playback, log } = ctx;
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
    state.closingByUs = true;
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
          const verdict = answeredByClassOfAmd(await Promise.race([state.amdVerdict ?? Promise.resolve("unknown"), new Promise<string>((resolve) => setTimeout(() => resolve("unknown"), 15_000))]).catch(() => "unknown"));
          if (verdict !== "machine" && verdict !== "fax") endForAnswerer({ reason: "voicemail", say: current.agent.voice.voicemailMessage });
          else state.closingByUs = true;
          return backgroundResult("A message is left; say nothing more.");
        }
        endForAnswerer({ reason: `answered-by-${answeredBy}`, say: null });
        return backgroundResult("The call is being ended; say nothing more.");
      },
    }),
    tool({
      name: "book_meeting",
      ...CALL_TOOLS.book_meeting,
      execute: async ({ preferredStartTime }) => timed(async () => JSON.stringify(await hooks.bookMeeting(current, ctx.callSid, { preferredStartTime })))(),
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
      execute: async ({ reason }) => JSON.stringify(await hooks.stopRecording(current, { offsetMs: media.now() + state.clockOffsetMs, reason: reason ?? "the contact objected" })),
    }),
    tool({
      name: "end_call",
      ...CALL_TOOLS.end_call,
      execute: async () => {
        state.closingByUs = true;
        void (async () => {
          await playback.drained(() => leg.open);
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
          const decision = await transfer(current, { callSid: ctx.callSid, target, reason });
          if (decision.start) {
            // The transfer starts once the model's hand-over line (the response to this result) has played.
            state.closingByUs = true;
            ctx.handover.await(decision.start);
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
          state.closingByUs = true;
          void (async () => {
            await playback.drained(() => leg.open);
            await pressDigits(callId, { digits, reason });
          })().catch((error: unknown) => log(`pressing keys on ${callId} failed`, describeFailure(error)));
          return backgroundResult(`Pressing ${digits}.`);
        },
      }),
    );
  }
  return tools;
}
