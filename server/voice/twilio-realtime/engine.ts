import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { z } from "zod";
import type { Db } from "@/db";
import { parseQuery, queryRefusalResponse } from "@/server/http/query-params";
import { idText } from "@/server/schemas/text";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import type { PlaceCallRequest, PlaceCallResult, RecordingPayload, VoiceEngine } from "@/server/voice/types";
import {
  applyAmdCallback,
  applyRecordingCallback,
  applyStatusCallback,
  bindCallSid,
  buildCallEndedEvent,
  claimDial,
  dispositionOf,
  findTwilioCall,
  INVALID_NUMBER_ERRORS,
  isFinalStatus,
  markEndedReported,
  markNotRecorded,
  pendingFinishReasons,
  recordHangup,
  recordRejectedDial,
  releaseDial,
  restartDial,
} from "./call-state";
import { createDtmf } from "./dtmf";
import { createInboundVoiceHandler } from "./inbound";
import { createMediaStreamServer, type MediaStreamServer } from "./media-bridge";
import { callbackUrl, mediaStreamPublicUrl, TRANSFER_HOOKS, twilioHookOf, TWILIO_HOOKS, type TransferHook, type TwilioHook, type TwilioRealtimeSettings } from "./settings";
import { createTransfers, type Transfers } from "./transfer";
import type { ListenHub } from "@/server/voice/listen/listen-hub";
import { isSignedByTwilio, TWILIO_SIGNATURE_HEADER } from "@/server/carriers/twilio/signature";
import { createStreamToken } from "./stream-token";
import { createTwilioClient, twilioErrorCode, type TwilioClient } from "@/server/carriers/twilio/twilio-client";
import { emptyTwiml, sayAndHangUpTwiml, streamTwiml } from "@/server/carriers/twilio/twiml";
import { getLogger } from "@/server/observability/logger";
import { answeredByActionFor, answeredByClassOfAmd } from "@/server/voice/call-quality";
import { markDisclosureSpoken } from "@/server/services/privacy/call-privacy";
import { redactDownloadedRecording } from "./recording-privacy";

export type TwilioRealtimeEngineDeps = {
  settings: TwilioRealtimeSettings;
  getDb: () => Db;
  /** Announces an ended call to the call engine (`call/ended`, deduplicated per call). */
  announceCallEnded: (callId: string) => Promise<void>;
  now?: () => Date;
  /** How long an ended call waits for its recording callback, and for its media stream to close (default 60 s / 10 s). */
  recordingWaitMs?: number;
  streamWaitMs?: number;
  /** How long a dial claim without a CallSid blocks a second attempt before it looks the call up at Twilio. */
  dialClaimMs?: number;
  log?: (message: string, error?: unknown) => void;
  /** Supervisors listening in (server/voice/listen); none: nobody can listen (tests, benchmarks). */
  listenHub?: () => ListenHub;
};

export type TwilioRealtimeEngine = VoiceEngine & {
  kind: "twilio-realtime";
  settings: TwilioRealtimeSettings;
  client: TwilioClient;
  media: MediaStreamServer;
  transfers: Transfers;
  /** `POST /api/carriers/twilio/calls/{twiml,status,amd,recording,transfer-*}?callId=…` (alias /api/voice/twilio/…): Twilio's signed callbacks. */
  handleCallback(request: Request): Promise<Response>;
  /** `POST /api/carriers/twilio/voice/{inbound,status}` (alias /api/twilio/voice/…): calls to our numbers (inbound.ts). */
  handleInboundWebhook(request: Request): Promise<Response>;
  /** The HTTP server's `upgrade` event for the media stream path (node-server.ts). */
  handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer): boolean;
  /** Reports the call ended when Twilio has said everything (idempotent; any instance may call it). */
  finishIfReady(callId: string): Promise<"reported" | "waiting" | "already-reported" | "unknown">;
  /** Hangs up a live call, optionally saying something first (TwiML `<Say>`, one per text). */
  hangUp(callId: string, params: { reason: string; say?: string | readonly string[] | null; failure?: string }): Promise<void>;
  /**
   * The shutdown's `calls` stage: hangs up the calls whose media stream is on this instance (their conversation cannot
   * outlive it) and waits, within `budgetMs`, until Twilio's callbacks have let each be reported ended. Resolves with
   * how many were hung up.
   */
  endLiveCalls(budgetMs: number): Promise<number>;
  close(): Promise<void>;
};

const MAX_CALL_SECONDS_CAP = 3600;

/** The query of the callback URLs we give Twilio (settings.ts `callbackUrl`): the call, and a transfer's ID on its hooks. */
export const ZTwilioCallbackQuerySchema = z.object({ callId: idText(), transferId: idText().optional() });

/**
 * `VOICE_ENGINE=twilio-realtime`: Twilio Programmable Voice dials (official `twilio` package), answering-machine
 * detection and dual-channel recording on; Twilio's signed callbacks drive the call's state in Postgres
 * (`twilio_calls`), the media stream reaches our WebSocket bridge where `@openai/agents-realtime` holds the
 * conversation; when Twilio has reported the end, the recording is downloaded and `call.ended` goes to the same
 * `handleVoiceProviderEvent` as every provider's events.
 */
export function createTwilioRealtimeEngine(deps: TwilioRealtimeEngineDeps): TwilioRealtimeEngine {
  const { settings } = deps;
  const now = deps.now ?? (() => new Date());
  const log = deps.log ?? ((message, error) => getLogger("voice-twilio").error({ err: error }, message));
  const client = createTwilioClient(settings);
  const recordingWaitMs = deps.recordingWaitMs ?? 60_000;
  const streamWaitMs = deps.streamWaitMs ?? 10_000;
  const timers = new Set<NodeJS.Timeout>();

  const scheduleRecheck = (callId: string, ms: number) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void engine.finishIfReady(callId).catch((error: unknown) => log(`finishing ${callId} failed`, error));
    }, ms);
    timer.unref?.();
    timers.add(timer);
  };

  async function downloadRecording(recordingSid: string, durationSeconds: number): Promise<RecordingPayload | null> {
    if (!/^RE[0-9a-f]{32}$/.test(recordingSid)) return null;
    // Only from Twilio's API origin, built from the SID: never a URL taken from a callback.
    const url = `${settings.twilio.apiBaseUrl}/2010-04-01/Accounts/${settings.twilio.accountSid}/Recordings/${recordingSid}.wav`;
    const auth = Buffer.from(`${settings.twilio.restUsername}:${settings.twilio.restPassword}`).toString("base64");
    for (let attempt = 1; attempt <= 3; attempt += 1) {
      try {
        const response = await fetch(url, { headers: { authorization: `Basic ${auth}` }, signal: AbortSignal.timeout(30_000) });
        if (response.status === 404) return null;
        if (!response.ok) throw new Error(`HTTP ${response.status}`);
        const bytes = Buffer.from(await response.arrayBuffer());
        return { contentType: "audio/wav", contentBase64: bytes.toString("base64"), durationSeconds };
      } catch (error) {
        if (attempt === 3) {
          log(`recording ${recordingSid} could not be downloaded`, error);
          return null;
        }
        await new Promise((resolve) => setTimeout(resolve, 500 * attempt));
      }
    }
    return null;
  }

  const transfers = createTransfers({ settings, client, getDb: deps.getDb, now, log, finishIfReady: (callId) => engine.finishIfReady(callId) });
  const media = createMediaStreamServer({
    settings,
    getDb: deps.getDb,
    now,
    log,
    transfers,
    listenHub: deps.listenHub,
    dtmf: createDtmf({ settings, client, getDb: deps.getDb, now, log }),
    hangUp: (callId, params) => engine.hangUp(callId, params),
    async stopRecording(callId) {
      const row = await findTwilioCall(deps.getDb(), callId);
      if (!row?.callSid || isFinalStatus(row.status)) return;
      try {
        // The recording started by calls.create (Record=true); Twilio.CURRENT names the one in progress.
        await client.calls(row.callSid).recordings("Twilio.CURRENT").update({ status: "stopped" });
      } catch (error) {
        log(`stopping the recording of ${callId} failed`, error);
      }
    },
    onStreamEnded: (callId) => {
      void engine.finishIfReady(callId).catch((error: unknown) => log(`finishing ${callId} failed`, error));
    },
  });

  async function onCallback(hook: TwilioHook, query: z.output<typeof ZTwilioCallbackQuerySchema>, form: Record<string, string>): Promise<Response> {
    const { callId } = query;
    if ((TRANSFER_HOOKS as readonly string[]).includes(hook)) {
      // The person's leg has a CallSid of its own: transfer.ts checks it against the transfer's.
      return transfers.handleCallback(hook as TransferHook, { callId, transferId: query.transferId ?? "", form });
    }
    const db = deps.getDb();
    const row = await findTwilioCall(db, callId);
    if (!row) return new Response("Unknown call", { status: 404 });
    const callSid = form.CallSid ?? "";
    if (row.callSid && callSid !== row.callSid) return new Response("This callback is about another call", { status: 409 });
    if (!row.callSid && /^CA[0-9a-f]{32}$/.test(callSid)) await bindCallSid(db, { callId, callSid, now: now() });
    switch (hook) {
      case "twiml": {
        if (isFinalStatus(row.status)) return twimlResponse(emptyTwiml());
        const token = createStreamToken({ callId, authToken: settings.twilio.authToken, now: now() });
        return twimlResponse(streamTwiml({ streamUrl: mediaStreamPublicUrl(settings), token }));
      }
      case "status": {
        const updated = await applyStatusCallback(db, { callId, form, now: now() });
        if (updated && isFinalStatus(updated.status)) {
          await transfers.cancelOpenLegs(callId);
          await engine.finishIfReady(callId);
        }
        return twimlResponse(emptyTwiml());
      }
      case "amd": {
        const answeredBy = form.AnsweredBy ?? "unknown";
        const amdDuration = Number(form.MachineDetectionDuration);
        const first = await applyAmdCallback(db, { callId, answeredBy, durationMs: Number.isFinite(amdDuration) && form.MachineDetectionDuration ? Math.round(amdDuration) : null, now: now() });
        // The conversation (if its stream is on this instance) has kept the model silent until now: a person lets it
        // speak, a machine keeps it silent for good (other instances' conversations see the row).
        if (first) media.answered(callId, answeredBy);
        if (first && /^(machine|fax)/.test(answeredBy)) {
          // A machine: no conversation. Leave the agent's voicemail message after the beep if it has one and its
          // setting for machines says so (a fax, or `hang-up`, just ends the call).
          const request = await media.placeCallRequest(callId);
          const action = answeredByActionFor(request?.agent.voice.answeredByActions, answeredByClassOfAmd(answeredBy));
          const message = answeredBy.startsWith("machine_end") && action === "leave-message" ? (request?.agent.voice.voicemailMessage ?? null) : null;
          // A message left on a machine starts with who is calling, word for word (the identification disclosure).
          const identification = message && request ? request.privacy.disclosures.identification.text : null;
          if (identification && request) {
            await markDisclosureSpoken(db, { callId, kind: "identification", offsetMs: Number(form.MachineDetectionDuration ?? 0) || 0, at: now(), via: "voicemail" });
          }
          await engine.hangUp(callId, { reason: "voicemail", say: identification ? [identification, message!] : message });
        }
        return twimlResponse(emptyTwiml());
      }
      case "recording": {
        const recordingSid = form.RecordingSid ?? "";
        await applyRecordingCallback(db, { callId, recordingSid, status: form.RecordingStatus ?? "completed", durationSeconds: Number(form.RecordingDuration ?? 0) || 0, now: now() });
        await engine.finishIfReady(callId);
        return twimlResponse(emptyTwiml());
      }
      default:
        return new Response("Not found", { status: 404 });
    }
  }

  const engine: TwilioRealtimeEngine = {
    kind: "twilio-realtime",
    settings,
    client,
    media,
    transfers,
    // Ring timeout + the longest call an agent may have + recording processing, before the watchdog steps in.
    maxCallWallSeconds: 120 + MAX_CALL_SECONDS_CAP + 120,

    async placeCall(request: PlaceCallRequest): Promise<PlaceCallResult> {
      const db = deps.getDb();
      const existing = await findTwilioCall(db, request.callId);
      if (existing?.callSid) return { providerCallId: existing.callSid, alreadyPlaced: true };
      if (existing) {
        // An earlier attempt claimed the dial but never learned the CallSid (it died, or is still waiting).
        if (now().getTime() - existing.dialStartedAt.getTime() < (deps.dialClaimMs ?? 30_000)) {
          throw new Error(`call ${request.callId} is being dialed by another attempt`);
        }
        const found = await client.calls.list({ to: request.to, from: request.from, startTimeAfter: new Date(existing.dialStartedAt.getTime() - 60_000), limit: 20 });
        const match = found.find((call) => call.dateCreated && call.dateCreated.getTime() >= existing.dialStartedAt.getTime() - 5_000);
        if (match) {
          await bindCallSid(db, { callId: request.callId, callSid: match.sid, now: now() });
          return { providerCallId: match.sid, alreadyPlaced: true };
        }
        if (!(await restartDial(db, { callId: request.callId, now: now(), previousStartedAt: existing.dialStartedAt }))) {
          throw new Error(`call ${request.callId} is being dialed by another attempt`);
        }
      } else if (!(await claimDial(db, { callId: request.callId, organizationId: request.organizationId, now: now() }))) {
        return engine.placeCall(request);
      }

      const voice = request.agent.voice;
      let callSid: string;
      try {
        const call = await client.calls.create({
          to: request.to,
          from: request.from,
          ...(request.toExt ? { sendDigits: `ww${request.toExt.replace(/[^0-9*#w]/g, "")}` } : {}),
          url: callbackUrl(settings, "twiml", request.callId),
          method: "POST",
          statusCallback: callbackUrl(settings, "status", request.callId),
          statusCallbackMethod: "POST",
          statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
          machineDetection: "DetectMessageEnd",
          machineDetectionTimeout: 30,
          asyncAmd: "true",
          asyncAmdStatusCallback: callbackUrl(settings, "amd", request.callId),
          asyncAmdStatusCallbackMethod: "POST",
          // An organization that keeps no recordings is never recorded (docs/compliance.md "Retention").
          record: request.privacy.keepRecordings,
          recordingChannels: "dual",
          recordingStatusCallback: callbackUrl(settings, "recording", request.callId),
          recordingStatusCallbackMethod: "POST",
          recordingStatusCallbackEvent: ["completed", "absent"],
          timeout: voice.ringTimeoutSeconds,
          timeLimit: Math.min(voice.maxCallSeconds, MAX_CALL_SECONDS_CAP),
        });
        callSid = call.sid;
      } catch (error) {
        const code = twilioErrorCode(error);
        if (code !== null && INVALID_NUMBER_ERRORS.includes(code)) {
          // The number is invalid: the call ends at once as such (no ringing, no charge).
          const rejectedSid = `rejected:${request.callId}`;
          await recordRejectedDial(db, { callId: request.callId, callSid: rejectedSid, errorCode: code, errorMessage: error instanceof Error ? error.message : String(error), now: now() });
          scheduleRecheck(request.callId, 0);
          return { providerCallId: rejectedSid, alreadyPlaced: false };
        }
        // Twilio answered with an error: nothing was placed, a retry may dial. No answer at all: keep the claim, so
        // the retry first looks the call up.
        if (code !== null || (error as { status?: number }).status) await releaseDial(db, request.callId);
        throw error;
      }
      await bindCallSid(db, { callId: request.callId, callSid, now: now() });
      if (!request.privacy.keepRecordings) await markNotRecorded(db, { callId: request.callId, now: now() });
      return { providerCallId: callSid, alreadyPlaced: false };
    },

    async handleCallback(request: Request): Promise<Response> {
      const url = new URL(request.url);
      const hook = twilioHookOf(url.pathname, "calls") as TwilioHook;
      if (request.method !== "POST" || !TWILIO_HOOKS.includes(hook) || hook === ("media" as never)) return new Response("Not found", { status: 404 });
      const text = (await request.text()).slice(0, 64_000);
      const form = Object.fromEntries(new URLSearchParams(text));
      const signed = isSignedByTwilio(settings, { pathAndQuery: url.pathname + url.search, signature: request.headers.get(TWILIO_SIGNATURE_HEADER), form });
      // Trust boundary: nothing of an unsigned or tampered callback is read, let alone stored.
      if (!signed) return new Response("Invalid Twilio signature", { status: 403 });
      // Signed by Twilio, and still checked like every query (server/http/query-params.ts): 400 `{error, message}`.
      const parsed = parseQuery(ZTwilioCallbackQuerySchema, url);
      if (!parsed.ok) return queryRefusalResponse(parsed.refusal);
      return onCallback(hook, parsed.query, form);
    },

    handleInboundWebhook: createInboundVoiceHandler({ settings, getDb: deps.getDb, now, finishIfReady: (callId) => engine.finishIfReady(callId) }),

    handleUpgrade: (request, socket, head) => media.handleUpgrade(request, socket, head),

    async callState({ callId, providerCallId }) {
      const row = await findTwilioCall(deps.getDb(), callId);
      if (!row || row.callSid !== providerCallId) return { state: "unknown" };
      if (providerCallId.startsWith("rejected:")) {
        // Refused at create: over before it started (its end is reported by this engine at once).
        return { state: "ended", endedAt: (row.completedAt ?? row.dialStartedAt).toISOString(), disposition: "invalid-number", durationSeconds: 0 };
      }
      // Twilio's Call resource (GET /Calls/{Sid}.json): its status is the truth; our row adds what AMD said.
      let call: Awaited<ReturnType<ReturnType<TwilioClient["calls"]>["fetch"]>>;
      try {
        call = await client.calls(providerCallId).fetch();
      } catch (error) {
        if ((error as { status?: number }).status === 404) return { state: "unknown" };
        throw error;
      }
      if (!isFinalStatus(call.status)) return { state: "active" };
      const endedAt = call.endTime ?? call.dateUpdated ?? now();
      const durationSeconds = Number(call.duration ?? 0) || 0;
      const answeredAt = row.answeredAt ?? (call.status === "completed" && durationSeconds > 0 ? (call.startTime ?? endedAt) : null);
      const { disposition } = dispositionOf({ ...row, status: call.status, answeredAt });
      return { state: "ended", endedAt: endedAt.toISOString(), disposition, durationSeconds };
    },

    async finishIfReady(callId) {
      const db = deps.getDb();
      const row = await findTwilioCall(db, callId);
      if (!row) return "unknown";
      if (row.endedReportedAt) return "already-reported";
      const pending = pendingFinishReasons(row, now(), { recordingMs: recordingWaitMs, streamMs: streamWaitMs });
      // A transferred call: the person's leg reports its own end (and duration) shortly after the caller's.
      if (row.completedAt && now().getTime() - row.completedAt.getTime() < streamWaitMs && (await transfers.openLegs(callId)) > 0) pending.push("transfer leg still open");
      if (pending.length > 0) {
        if (row.completedAt) {
          const waited = now().getTime() - row.completedAt.getTime();
          scheduleRecheck(callId, Math.max(50, Math.min(recordingWaitMs, streamWaitMs) - waited + 50));
        }
        return "waiting";
      }
      const downloaded = row.recordingSid && row.recordingStatus === "completed" ? await downloadRecording(row.recordingSid, row.recordingDurationSeconds ?? row.durationSeconds ?? 0) : null;
      // Redacted turns are silenced in the audio before it is handed over (and stored).
      const { recording, redactedSpans } = downloaded ? await redactDownloadedRecording(db, row, downloaded) : { recording: null, redactedSpans: [] };
      const event = await buildCallEndedEvent(db, row, { now: now(), recording });
      const outcome = await handleVoiceProviderEvent(db, { event: { ...event, redactedSpans } });
      await markEndedReported(db, { callId, now: now() });
      // Our copy is the redacted one: Twilio's (unredacted) copy goes.
      if (row.recordingSid && downloaded) {
        await client
          .recordings(row.recordingSid)
          .remove()
          .catch((error: unknown) => log(`deleting recording ${row.recordingSid} at Twilio failed`, error));
      }
      if (outcome.status === "accepted" && outcome.callEnded) await deps.announceCallEnded(callId);
      return "reported";
    },

    async hangUp(callId, params) {
      const db = deps.getDb();
      await recordHangup(db, { callId, reason: params.reason, failure: params.failure, voicemailMessage: params.say && params.reason === "voicemail" ? [params.say].flat().join(" ") : null, now: now() });
      const row = await findTwilioCall(db, callId);
      if (!row?.callSid || isFinalStatus(row.status) || row.callSid.startsWith("rejected:")) return;
      try {
        if (params.say) await client.calls(row.callSid).update({ twiml: sayAndHangUpTwiml(params.say) });
        else await client.calls(row.callSid).update({ status: "completed" });
      } catch (error) {
        // 21220: the call already ended (the callee hung up first).
        if (twilioErrorCode(error) !== 21220) log(`hanging up ${callId} failed`, error);
      }
    },

    async endLiveCalls(budgetMs) {
      const callIds = [...media.live.keys()];
      await Promise.all(callIds.map((callId) => engine.hangUp(callId, { reason: "shutdown" }).catch((error: unknown) => log(`hanging up ${callId} for the shutdown failed`, error))));
      const deadline = Date.now() + budgetMs;
      let waiting = callIds;
      while (waiting.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        const states = await Promise.all(waiting.map(async (callId) => ((await engine.finishIfReady(callId).catch(() => "waiting")) === "waiting" ? callId : null)));
        waiting = states.filter((callId): callId is string => callId !== null);
      }
      return callIds.length;
    },

    async endCall(callId) {
      const row = await findTwilioCall(deps.getDb(), callId);
      if (!row?.callSid || isFinalStatus(row.status) || row.callSid.startsWith("rejected:")) return false;
      await engine.hangUp(callId, { reason: "console" });
      return true;
    },

    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      transfers.close();
      await media.close();
    },
  };
  return engine;
}

function twimlResponse(xml: string): Response {
  return new Response(xml, { status: 200, headers: { "content-type": "text/xml" } });
}
