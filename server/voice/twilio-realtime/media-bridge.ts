import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { eq, sql } from "drizzle-orm";
import { WebSocketServer, type WebSocket } from "ws";
import { TwilioMediaStreamLeg } from "@/server/carriers/twilio/media-stream-leg";
import type { Db } from "@/db";
import { calls, optOuts } from "@/db/schema";
import { parseSpokenDateTime } from "@/server/analysis/values";
import { refuseUpgrade } from "@/server/http/upgrades";
import { buildPlaceCallRequest } from "@/server/services/call-engine/dial-call";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import type { PlaceCallRequest } from "@/server/voice/types";
import { findTwilioCall, isFinalStatus, markStream } from "./call-state";
import { markDisclosureSpoken, markRecordingDeclined, redactorFor } from "@/server/services/privacy/call-privacy";
import { disclosureTexts } from "@/server/services/privacy/disclosures";
import { saveRedactedTranscriptLine } from "@/server/services/privacy/transcript-lines";
import { createDisclosureSpeech, type DisclosureSpeech } from "./disclosure-speech";
import { startConversation, type ConversationHooks, type LiveConversation } from "@/server/voice/conversation/conversation";
import type { LegSend } from "@/server/voice/conversation/held-leg";
import type { MediaLeg } from "@/server/voice/conversation/media-leg";
import { TWILIO_LEGACY_MEDIA_PATH, TWILIO_MEDIA_PATH, type TwilioRealtimeSettings } from "./settings";
import { isSignedStreamHandshake, TWILIO_SIGNATURE_HEADER } from "@/server/carriers/twilio/signature";
import { verifyStreamToken } from "./stream-token";
import type { Dtmf } from "./dtmf";
import type { Transfers } from "./transfer";
import type { ListenHub } from "@/server/voice/listen/listen-hub";
import { CallAudioMixer } from "@/server/voice/listen/mixer";
import { transcriptLinesOf } from "./call-state";

export type MediaStreamServerDeps = {
  settings: TwilioRealtimeSettings;
  getDb: () => Db;
  now: () => Date;
  log: (message: string, error?: unknown) => void;
  hangUp: ConversationHooks["hangUp"];
  /** Stops the call's recording at Twilio for the rest of the call (the contact objected); the engine's. */
  stopRecording?: (callId: string) => Promise<void>;
  /** Speaks the disclosures (text to speech); default: OpenAI's speech endpoint with the engine's settings. */
  speech?: DisclosureSpeech;
  onStreamEnded: (callId: string) => void;
  /** Transfers and phone menus (transfer.ts, dtmf.ts); without them the tools are not offered (benchmark). */
  transfers?: Transfers;
  dtmf?: Dtmf;
  /** Supervisors listening in (server/voice/listen): this bridge is the source of its calls' audio. */
  listenHub?: () => ListenHub;
  /** Replaces the Postgres-backed hooks (the media-bridge benchmark runs the bridge without a database). */
  hooks?: Partial<ConversationHooks>;
  /** Skip the handshake's X-Twilio-Signature check (benchmark only; the stream token is still required). */
  unsignedHandshakes?: boolean;
};

export type MediaStreamServer = {
  /** Takes the upgrade when it is for the media path (returns false otherwise, for another handler). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Conversations live in this process, by call ID. */
  live: Map<string, LiveConversation>;
  placeCallRequest(callId: string): Promise<PlaceCallRequest | null>;
  /** Twilio's answering-machine verdict arrived (on this instance): a conversation waiting for it here goes on now. */
  answered(callId: string, answeredBy: string): void;
  close(): Promise<void>;
};

/** A stream that has not sent a valid `start` within this time is closed. */
const START_TIMEOUT_MS = 10_000;
/**
 * How long a conversation waits for the answering-machine verdict before it treats the callee as a person. Twilio
 * decides within `MachineDetectionTimeout` (engine.ts asks for 30 s) and its callback may land on another instance:
 * each waiting conversation also looks at the call's row every AMD_POLL_MS.
 */
const AMD_WAIT_MS = 32_000;
const AMD_POLL_MS = 250;

/**
 * Both sides of the call for whoever listens (any instance: the hub forwards through Postgres NOTIFY): the callee's
 * frames as the leg delivers them, and what the conversation sends. Nothing is mixed while nobody listens.
 */
function tapForListeners(hub: ListenHub, callId: string, leg: MediaLeg): { observeSends: (sent: LegSend) => void; stop: () => void } {
  const source = hub.registerSource(callId);
  const mixer = new CallAudioMixer((frame) => source.push(frame));
  const stopInbound = leg.on("audio", (frame) => {
    if (source.wanted()) mixer.inbound(frame.audio);
  });
  return {
    observeSends(sent) {
      if (!source.wanted()) return;
      if (sent.kind === "clear") mixer.clear();
      else if (sent.kind === "audio") mixer.outbound(Buffer.from(sent.audio.buffer, sent.audio.byteOffset, sent.audio.byteLength));
    },
    stop() {
      stopInbound();
      source.close();
    },
  };
}

/**
 * Our end of Twilio Media Streams (`wss://PUBLIC_BASE_URL/ws/voice/twilio`). Two locks: the handshake must be
 * signed by Twilio (X-Twilio-Signature over the public wss URL), and the `start` message must carry the per-call
 * token our TwiML issued (signed, expiring, naming the call) — without both the socket is refused or closed before
 * anything is read from the database. The stream may land on any instance: the call is loaded from Postgres.
 */
export function createMediaStreamServer(deps: MediaStreamServerDeps): MediaStreamServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 1024 * 1024 });
  const live = new Map<string, LiveConversation>();

  const placeCallRequest = async (callId: string) => {
    try {
      return await buildPlaceCallRequest(deps.getDb(), callId);
    } catch {
      return null;
    }
  };

  const speech = deps.speech ?? createDisclosureSpeech(deps.settings);
  const defaultHooks: ConversationHooks = {
    async load(callId) {
      const db = deps.getDb();
      const [row, request] = await Promise.all([findTwilioCall(db, callId), placeCallRequest(callId)]);
      if (!row || !request || isFinalStatus(row.status)) return null;
      const [call] = await db.select({ resultType: calls.resultType }).from(calls).where(eq(calls.id, callId)).limit(1);
      if (call?.resultType !== "Calling") return null;
      return { request, callSid: row.callSid };
    },
    streamStarted: (callId, streamSid) => markStream(deps.getDb(), { callId, event: "started", streamSid, now: deps.now() }),
    async streamEnded(callId, streamSid, measured) {
      await markStream(deps.getDb(), { callId, event: "ended", streamSid, now: deps.now(), quality: measured.quality, envelope: measured.media });
      deps.onStreamEnded(callId);
    },
    async saveLine(request, line) {
      // Redacted before it is stored; a contact who says they do not want the recording gets it stopped.
      const saved = await saveRedactedTranscriptLine(deps.getDb(), { organizationId: request.organizationId, callId: request.callId, line, redactor: redactorFor(request.privacy) });
      if (saved.objectsToRecording) await hooks.stopRecording(request, { offsetMs: line.offsetMs, reason: "the contact asked not to be recorded" });
    },
    prepareDisclosures: (request) =>
      Promise.all(disclosureTexts(request.privacy.disclosures).map(async ({ kind, text }) => ({ kind, text, audio: await speech.synthesize(text, request.agent.voice.voice) }))),
    disclosureSpoken: (request, { kind, offsetMs }) => markDisclosureSpoken(deps.getDb(), { callId: request.callId, kind, offsetMs, at: deps.now(), via: "call" }),
    async stopRecording(request, { offsetMs, reason }) {
      if (request.privacy.disclosures.recording.state !== "on") return { ok: true, message: "This call is not being recorded." };
      const declined = await markRecordingDeclined(deps.getDb(), { callId: request.callId, offsetMs, at: deps.now(), reason });
      if (declined) await deps.stopRecording?.(request.callId);
      return { ok: true, message: "The recording is stopped; the rest of the call is not recorded." };
    },
    async bookMeeting(request, callSid, args) {
      const now = deps.now();
      const spoken = args.preferredStartTime ? parseSpokenDateTime(args.preferredStartTime, now, request.contact.timezone || "UTC") : null;
      // The same path as every provider's `call.tool`: the booking rules of the agent's mode, the attempt recorded.
      const outcome = await handleVoiceProviderEvent(deps.getDb(), {
        event: {
          type: "call.tool",
          tool: "book_meeting",
          providerCallId: callSid,
          callId: request.callId,
          occurredAt: now.toISOString(),
          arguments: spoken ? { preferredStartTime: spoken.toISO() } : {},
        },
      });
      if (outcome.status === "accepted" && outcome.toolResult) return outcome.toolResult;
      return { ok: false, message: "The booking could not be made during this call." };
    },
    async optOut(request) {
      const db = deps.getDb();
      const now = deps.now();
      // Recorded at once, not after the analysis: the number is suppressed even if the call is never analysed.
      await db.transaction(async (tx) => {
        await tx.insert(optOuts).values({ organizationId: request.organizationId, phoneNumber: request.to, sourceCallId: request.callId, createdAt: now }).onConflictDoNothing();
        const action = { description: "Recorded the contact's request not to be called again", status: "completed", actionKey: "opt_out", completedAt: now.toISOString(), metadata: {} };
        await tx
          .update(calls)
          .set({ agentActions: sql`${calls.agentActions} || ${JSON.stringify([action])}::jsonb` })
          .where(eq(calls.id, request.callId));
      });
      return { ok: true, message: "The number is removed from the calling list; nobody from this organization will call it again." };
    },
    hangUp: (callId, params) => deps.hangUp(callId, params),
    answeredBy: (callId, signal) => waitForAnsweredBy(callId, signal),
    ...(deps.transfers ? { transfer: (request: PlaceCallRequest, params: { callSid: string; target: string; reason: string }) => deps.transfers!.decide(request, params) } : {}),
    ...(deps.dtmf
      ? {
          checkDigits: (digits: string) => deps.dtmf!.check(digits),
          pressDigits: (callId: string, params: { digits: string; reason: string | null }) => deps.dtmf!.press({ callId, ...params }),
        }
      : {}),
    async resume(request, resume) {
      const db = deps.getDb();
      const [row, lines] = await Promise.all([findTwilioCall(db, request.callId), transcriptLinesOf(db, request.callId)]);
      const digits = /^digits:([0-9*#wW]{1,32})$/.exec(resume)?.[1];
      const transferId = /^transfer:([a-z0-9.-]{1,80})$/.exec(resume)?.[1];
      const note = digits && deps.dtmf ? deps.dtmf.resumeNote(digits) : transferId && deps.transfers ? await deps.transfers.resumeNote(request.callId, transferId, request) : null;
      return { lines: lines.map((line) => ({ itemId: line.itemId, speaker: line.speaker, text: line.text })), note, respond: !digits, answeredAt: row?.answeredAt ?? null };
    },
  };
  const hooks: ConversationHooks = { ...defaultHooks, ...deps.hooks };

  /** Conversations of this instance waiting for their call's answering-machine verdict. */
  const amdWaiters = new Map<string, Set<(answeredBy: string) => void>>();
  function waitForAnsweredBy(callId: string, signal: AbortSignal): Promise<string> {
    return new Promise((resolve, reject) => {
      let settled = false;
      const waiters = amdWaiters.get(callId) ?? new Set();
      amdWaiters.set(callId, waiters);
      const settle = (answeredBy: string | null, error?: Error) => {
        if (settled) return;
        settled = true;
        clearInterval(poll);
        clearTimeout(timeout);
        signal.removeEventListener("abort", onAbort);
        waiters.delete(deliver);
        if (waiters.size === 0) amdWaiters.delete(callId);
        if (answeredBy === null) reject(error);
        else resolve(answeredBy);
      };
      const deliver = (answeredBy: string) => settle(answeredBy);
      const onAbort = () => settle(null, new Error("the media stream ended"));
      waiters.add(deliver);
      signal.addEventListener("abort", onAbort);
      const timeout = setTimeout(() => settle("unknown"), AMD_WAIT_MS);
      const poll = setInterval(() => {
        void findTwilioCall(deps.getDb(), callId)
          .then((row) => row?.answeredBy && settle(row.answeredBy))
          .catch(() => {});
      }, AMD_POLL_MS);
      if (signal.aborted) onAbort();
    });
  }


  function onConnection(ws: WebSocket) {
    const leg = new TwilioMediaStreamLeg(ws);
    const timeout = setTimeout(() => ws.close(1008, "no start"), START_TIMEOUT_MS);
    leg.on("start", (start) => {
      clearTimeout(timeout);
      const callId = verifyStreamToken(start.parameters.token, { authToken: deps.settings.twilio.authToken, now: deps.now() });
      if (!callId) {
        ws.close(1008, "invalid stream token");
        return;
      }
      const tap = deps.listenHub ? tapForListeners(deps.listenHub(), callId, leg) : null;
      const conversation = startConversation({
        leg,
        callId,
        settings: deps.settings,
        hooks,
        now: deps.now,
        log: deps.log,
        resume: start.parameters.resume ?? null,
        ...(tap ? { observeSends: tap.observeSends } : {}),
      });
      live.set(callId, conversation);
      void conversation.ended.finally(() => {
        tap?.stop();
        if (live.get(callId) === conversation) live.delete(callId);
      });
    });
    ws.on("close", () => clearTimeout(timeout));
  }

  return {
    live,
    placeCallRequest,
    answered(callId, answeredBy) {
      for (const deliver of [...(amdWaiters.get(callId) ?? [])]) deliver(answeredBy);
    },
    handleUpgrade(request, socket, head) {
      const path = (request.url ?? "").split("?")[0];
      if (path !== TWILIO_MEDIA_PATH && path !== TWILIO_LEGACY_MEDIA_PATH) return false;
      const signature = request.headers[TWILIO_SIGNATURE_HEADER];
      const signed = deps.unsignedHandshakes || isSignedStreamHandshake(deps.settings, { pathAndQuery: request.url ?? "", signature: typeof signature === "string" ? signature : null });
      if (!signed) {
        refuseUpgrade(socket, { error: "FORBIDDEN", message: "Missing or invalid X-Twilio-Signature." });
        return true;
      }
      wss.handleUpgrade(request, socket, head, (ws) => onConnection(ws));
      return true;
    },
    async close() {
      for (const conversation of live.values()) conversation.abort();
      await Promise.all([...live.values()].map((conversation) => conversation.ended));
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
