import { ulid } from "ulid";
import type { PlaceCallRequest, PlaceCallResult, ProviderCallState, ToolCallResult, VoiceEngine, VoiceProviderEvent, VoiceTranscriptLine } from "@/server/voice/types";
import { planSimulatedCall, renderSimulatedTranscript, SIMULATED_OBJECTION, type SimulatedCallPlan } from "./script";
import { disclosureTexts } from "@/server/services/privacy/disclosures";
import { createSimulatorRecordingHost, type SimulatorRecordingHost } from "./recording-host";
import { simulatedCallQuality } from "./quality";
import { createConversationWav, seedOf } from "./wav";
import { getLogger } from "@/server/observability/logger";

/** Delivers one provider event to our entry point; returns the tool result for `call.tool` events. */
export type VoiceEventTransport = (event: VoiceProviderEvent) => Promise<ToolCallResult | null>;

export type SimulatorPace =
  /** Events are delivered on real timers, compressed: the whole call takes a few seconds of wall time. */
  | "realtime"
  /** Nothing happens until `runPending()` (tests and the seed drive time themselves). */
  | "manual";

export type SimulatorOptions = {
  transport: VoiceEventTransport;
  pace?: SimulatorPace;
  /** The provider's clock, stamped on every event (`occurredAt`). */
  now?: () => Date;
  /**
   * `delivery` (default): events carry the clock's time when they are delivered. `simulated`: they carry the time
   * they would have had in a real call, from the dial (ringing +3 s, answered +8 s, ended after the full simulated
   * duration) — for driving the engine with explicit timestamps (the demo history).
   */
  eventTimes?: "delivery" | "simulated";
  /** Wall milliseconds per simulated call second in realtime pace (default 12: a 7-minute call ends in ~5 s). */
  msPerSimulatedSecond?: number;
  /** Longest compressed conversation, in wall milliseconds (default 8 s). */
  maxConversationMs?: number;
  log?: (message: string, error?: unknown) => void;
  /**
   * How `call.ended` carries the audio. `url` (the app's simulator): a URL on the simulator's own recording host, which
   * the entry point downloads, as real providers do (Twilio's `RecordingUrl`): the event stays a few kB. `inline`
   * (default: tests, the demo seed): the WAV as base64 in the event.
   */
  recordings?: "inline" | "url";
  /** The host for `url` recordings (default: one of its own, stopped by `close()`). */
  recordingHost?: SimulatorRecordingHost;
  /**
   * Live transcript lines: 0 (default) posts each spoken turn as its own `call.transcript` event; a positive value
   * gathers the turns and posts them as one `call.transcript.batch` at most this often (wall ms), and before the end.
   */
  transcriptBatchMs?: number;
};

export type SimulatedVoiceEngine = VoiceEngine & {
  kind: "simulator";
  /** How many times each call was really dialed (a repeated `placeCall` for the same callId does not count). */
  dialCount(callId: string): number;
  /** Calls placed whose conversation has not run yet (manual pace). */
  pendingCallIds(): string[];
  /** Runs the pending conversations (all, or one call's) to their `call.ended` event, in placing order. */
  runPending(callId?: string): Promise<void>;
  /** Resolves when every conversation started in realtime pace has delivered its last event. */
  idle(): Promise<void>;
  /**
   * Hangs up every call in the air (as the console's hang-up does: each ends with what was said so far) and resolves
   * with their number once every conversation has delivered its last event (the app's shutdown, stage `calls`).
   */
  hangUpAll(): Promise<number>;
  /** Stops the recording host (url recordings); its URLs stop answering. */
  close(): Promise<void>;
  /**
   * Loses every trace of a call, as a provider whose record of it is gone: it never reports, and `callState` says
   * `unknown` (the process engine loses all its calls this way when its process dies).
   */
  loseCall(callId: string): void;
};

const RINGING_AFTER_MS = 150;
const ANSWERED_AFTER_MS = 450;
const TOOL_AFTER_MS = 300;
const NOT_CONNECTED_ENDS_AFTER_MS = 900;
const DELIVERY_RETRIES_MS = [500, 1000, 2000, 4000];
/** Simulated seconds from dial to the end report of calls that never connect. */
const NOT_CONNECTED_ENDS_AFTER_SECONDS: Partial<Record<string, number>> = { busy: 12, "invalid-number": 3, failed: 6, "no-answer": 30 };

/** The simulator's longest call from dial to `call.ended`, in wall seconds (its event retries included). */
export function simulatorMaxCallWallSeconds(maxConversationMs = 8000): number {
  return Math.ceil((RINGING_AFTER_MS + ANSWERED_AFTER_MS + TOOL_AFTER_MS + maxConversationMs + DELIVERY_RETRIES_MS.reduce((a, b) => a + b, 0)) / 1000) + 5;
}

/**
 * The deterministic voice simulator (DESIGN §7): the contact number's last digit chooses the scenario; the
 * conversation reports itself through the transport, i.e. through the provider-event entry point, exactly as a
 * real provider's webhooks would. Idempotent per callId (a provider-side idempotency key).
 */
export function createSimulatedVoiceEngine(options: SimulatorOptions): SimulatedVoiceEngine {
  const pace = options.pace ?? "realtime";
  const now = options.now ?? (() => new Date());
  const msPerSecond = options.msPerSimulatedSecond ?? 12;
  const maxConversationMs = options.maxConversationMs ?? 8000;
  const batchMs = options.transcriptBatchMs ?? 0;
  const log = options.log ?? ((message, error) => getLogger("voice-simulator").error({ err: error }, message));
  const placed = new Map<string, { providerCallId: string; dials: number }>();
  /** The provider's record of each call placed: `active` until it ends, then how it ended (as Twilio's Call resource). */
  const states = new Map<string, ProviderCallState>();
  /** Calls lost by `loseCall`: whatever their conversation still does is never reported. */
  const lost = new Set<string>();
  /** Calls in conversation: `hangUp` sets `hungUp` and wakes the conversation from its wait. */
  const live = new Map<string, { hungUp: boolean; wake: () => void }>();
  const pending: Array<{ callId: string; run: () => Promise<void> }> = [];
  const running = new Set<Promise<void>>();
  const recordingHost: SimulatorRecordingHost | null = options.recordings === "url" ? (options.recordingHost ?? createSimulatorRecordingHost()) : null;

  const sleep = (ms: number) => (pace === "realtime" ? new Promise<void>((resolve) => setTimeout(resolve, ms)) : Promise.resolve());

  async function deliver(event: VoiceProviderEvent): Promise<ToolCallResult | null> {
    if (lost.has(event.callId)) return null;
    const attempts = pace === "realtime" ? DELIVERY_RETRIES_MS.length + 1 : 1;
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await options.transport(event);
      } catch (error) {
        if (attempt >= attempts) throw error;
        await sleep(DELIVERY_RETRIES_MS[attempt - 1]!);
      }
    }
  }

  async function converse(request: PlaceCallRequest, providerCallId: string, plan: SimulatedCallPlan, placedAt: Date): Promise<void> {
    const base = { providerCallId, callId: request.callId };
    const startedAt = options.eventTimes === "simulated" ? placedAt : now();
    const at = (simulatedSeconds: number) =>
      (options.eventTimes === "simulated" ? new Date(placedAt.getTime() + simulatedSeconds * 1000) : now()).toISOString();
    const answeredAfter = 8;
    const control = { hungUp: false, wake: () => {} };
    live.set(request.callId, control);
    /** Waits `ms` of wall time (realtime pace), or less when the call is hung up meanwhile. */
    const wait = (ms: number) =>
      pace === "realtime" && !control.hungUp
        ? new Promise<void>((resolve) => {
            const timer = setTimeout(resolve, ms);
            control.wake = () => {
              clearTimeout(timer);
              resolve();
            };
          })
        : Promise.resolve();
    try {
      await conversation();
    } finally {
      live.delete(request.callId);
    }

    async function conversation() {
      await sleep(RINGING_AFTER_MS);
      await deliver({ ...base, type: "call.ringing", occurredAt: at(3) });
      let booking: ToolCallResult | null = null;
      if (plan.connected) {
        await sleep(ANSWERED_AFTER_MS);
        await deliver({ ...base, type: "call.answered", occurredAt: at(answeredAfter) });
        if (plan.booksMeeting) {
          await sleep(TOOL_AFTER_MS);
          booking = await deliver({
            ...base,
            type: "call.tool",
            tool: "book_meeting",
            occurredAt: at(answeredAfter + Math.floor(plan.durationSeconds * 0.7)),
            arguments: { contactName: request.contact.name, contactEmail: request.contact.email, timezone: request.contact.timezone },
          }).catch((error: unknown) => ({ ok: false, message: error instanceof Error ? error.message : "tool call failed" }));
        }
      }
      if (plan.connected && plan.transfer) {
        // The provider's report of the hand-over it made (the real engine records its own; docs/call-engine.md "Transfers").
        const { targetLabel, mode, outcome, humanLegSeconds } = plan.transfer;
        await deliver({
          ...base,
          type: "call.tool",
          tool: "transfer_call",
          occurredAt: at(answeredAfter + Math.floor(plan.durationSeconds * 0.4)),
          arguments: { targetLabel, mode, answered: outcome === "completed", humanLegSeconds, outcome, reason: "The contact asked to talk to a person." },
        }).catch((error: unknown) => log(`call ${request.callId}: the transfer was not recorded`, error));
      }
      let transcript = renderSimulatedTranscript(request, plan, startedAt, booking);
      let recordingStoppedAtMs: number | null = null;
      let durationSeconds = plan.durationSeconds;
      if (plan.connected) {
        // The turns are spoken (and reported live, as the real engine does) spread over the conversation's wall time.
        const turns = (transcript ?? "").split("\n").filter(Boolean);
        const wallMs = Math.min(maxConversationMs, plan.durationSeconds * msPerSecond);
        let spoken = 0;
        let unsent: VoiceTranscriptLine[] = [];
        let lastSentAt = Date.now();
        const sendLines = async () => {
          const lines = unsent;
          unsent = [];
          lastSentAt = Date.now();
          if (lines.length === 0) return;
          const occurredAt = at(answeredAfter + Math.floor(lines.at(-1)!.offsetMs / 1000));
          await deliver(
            batchMs > 0 ? { ...base, type: "call.transcript.batch", occurredAt, lines } : { ...base, type: "call.transcript", occurredAt, ...lines[0]! },
          ).catch((error: unknown) => log(`call ${request.callId}: live transcript lines were not stored`, error));
        };
        const disclosures = disclosureTexts(request.privacy.disclosures);
        for (const [index, turn] of turns.entries()) {
          if (control.hungUp) break;
          const separator = turn.indexOf(": ");
          const text = separator >= 0 ? turn.slice(separator + 2) : turn;
          const offsetMs = Math.floor((plan.durationSeconds * 1000 * index) / turns.length);
          unsent.push({ itemId: `turn-${index + 1}`, speaker: turn.startsWith("Agent:") ? "agent" : "customer", text, offsetMs });
          // What a provider reports besides the words: a disclosure spoken, the recording stopped at the contact's word.
          const disclosure = disclosures.find((candidate) => candidate.text === text && turn.startsWith("Agent:"));
          if (disclosure) {
            await sendLines();
            await deliver({ ...base, type: "call.disclosure", kind: disclosure.kind, offsetMs, via: plan.outcome.disposition === "voicemail" ? "voicemail" : "call", occurredAt: at(answeredAfter + Math.floor(offsetMs / 1000)) }).catch(
              (error: unknown) => log(`call ${request.callId}: the disclosure was not reported`, error),
            );
          }
          if (text === SIMULATED_OBJECTION && request.privacy.keepRecordings) {
            recordingStoppedAtMs ??= offsetMs;
            await deliver({ ...base, type: "call.recording", state: "declined", offsetMs, reason: "the contact asked not to be recorded", occurredAt: at(answeredAfter + Math.floor(offsetMs / 1000)) }).catch(
              (error: unknown) => log(`call ${request.callId}: the stopped recording was not reported`, error),
            );
          }
          if (batchMs <= 0 || Date.now() - lastSentAt >= batchMs) await sendLines();
          spoken = index + 1;
          await wait(wallMs / turns.length);
        }
        await sendLines();
        if (control.hungUp) {
          // Hung up from our side: the call lasted as long as the turns spoken so far, and says only those.
          durationSeconds = Math.max(1, Math.floor((plan.durationSeconds * spoken) / Math.max(1, turns.length)));
          transcript = turns.slice(0, spoken).join("\n") || null;
        }
      } else {
        await sleep(NOT_CONNECTED_ENDS_AFTER_MS);
      }
      // A recording stopped at the contact's word ends there.
      const recordingSeconds = Math.max(1, recordingStoppedAtMs === null ? durationSeconds : Math.ceil(recordingStoppedAtMs / 1000));
      const recording = !plan.outcome.hasRecording || !request.privacy.keepRecordings
        ? null
        : recordingHost
          ? { contentType: "audio/wav", url: await recordingHost.urlFor(request.callId, recordingSeconds), durationSeconds }
          : {
              contentType: "audio/wav",
              contentBase64: Buffer.from(createConversationWav({ seconds: recordingSeconds, seed: seedOf(request.callId) })).toString("base64"),
              durationSeconds,
            };
      const endedAt = at(plan.connected ? answeredAfter + durationSeconds : NOT_CONNECTED_ENDS_AFTER_SECONDS[plan.outcome.disposition] ?? 10);
      // Over at the provider before its report is delivered (a report may be late, or never arrive).
      if (states.has(request.callId)) states.set(request.callId, { state: "ended", endedAt, disposition: plan.outcome.disposition, durationSeconds });
      await deliver({
        ...base,
        type: "call.ended",
        occurredAt: endedAt,
        disposition: plan.outcome.disposition,
        durationSeconds,
        transcript,
        recording,
        quality: simulatedCallQuality({ callId: request.callId, disposition: plan.outcome.disposition, transcript, durationSeconds, greetingMode: request.agent.voice.greetingMode ?? "on-answer" }),
        ...(plan.outcome.disposition === "failed" ? { errorMessage: "Simulated carrier error (SIP 503)" } : {}),
      });
    }
  }

  return {
    kind: "simulator",
    maxCallWallSeconds: simulatorMaxCallWallSeconds(maxConversationMs),

    async placeCall(request): Promise<PlaceCallResult> {
      const existing = placed.get(request.callId);
      if (existing) return { providerCallId: existing.providerCallId, alreadyPlaced: true };
      const providerCallId = `sim-${ulid().toLowerCase()}`;
      lost.delete(request.callId);
      placed.set(request.callId, { providerCallId, dials: 1 });
      states.set(request.callId, { state: "active" });
      const plan = planSimulatedCall(request, now());
      const placedAt = now();
      const run = () => converse(request, providerCallId, plan, placedAt);
      if (pace === "manual") {
        pending.push({ callId: request.callId, run });
      } else {
        const task = run()
          .catch((error: unknown) => log(`call ${request.callId} could not report its events`, error))
          .finally(() => running.delete(task));
        running.add(task);
      }
      return { providerCallId, alreadyPlaced: false };
    },

    async endCall(callId) {
      const call = live.get(callId);
      if (!call || call.hungUp) return false;
      call.hungUp = true;
      call.wake();
      return true;
    },

    async callState({ callId, providerCallId }) {
      if (placed.get(callId)?.providerCallId !== providerCallId) return { state: "unknown" };
      return states.get(callId) ?? { state: "unknown" };
    },

    loseCall(callId) {
      lost.add(callId);
      placed.delete(callId);
      states.delete(callId);
      const index = pending.findIndex((entry) => entry.callId === callId);
      if (index >= 0) pending.splice(index, 1);
      const call = live.get(callId);
      if (call) {
        call.hungUp = true;
        call.wake();
      }
    },

    dialCount(callId) {
      return placed.get(callId)?.dials ?? 0;
    },

    pendingCallIds() {
      return pending.map((entry) => entry.callId);
    },

    async runPending(callId) {
      for (;;) {
        const index = callId ? pending.findIndex((entry) => entry.callId === callId) : 0;
        if (index < 0 || index >= pending.length) return;
        const [entry] = pending.splice(index, 1);
        await entry!.run();
      }
    },

    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },

    async hangUpAll() {
      let count = 0;
      for (const call of live.values()) {
        if (call.hungUp) continue;
        call.hungUp = true;
        call.wake();
        count += 1;
      }
      while (running.size > 0) await Promise.allSettled([...running]);
      return count;
    },

    async close() {
      await recordingHost?.close();
    },
  };
}
