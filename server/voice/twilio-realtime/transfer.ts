import type { Db } from "@/db";
import { newId } from "@/server/ids";
import {
  DEFAULT_COLD_DIAL_TIMEOUT_SECONDS,
  FALLBACK_OFFERS,
  findTransferTarget,
  isSipUri,
  isWithinTransferHours,
  type TransferConfig,
  type TransferTarget,
} from "@/server/voice/transfer-settings";
import type { PlaceCallRequest, ToolCallResult } from "@/server/voice/types";
import { findTwilioCall, isFinalStatus, transcriptLinesOf } from "./call-state";
import { callbackUrl, mediaStreamPublicUrl, type TransferHook, type TwilioRealtimeSettings } from "./settings";
import { createStreamToken } from "./stream-token";
import { twilioErrorCode, type TwilioClient } from "@/server/carriers/twilio/twilio-client";
import {
  appendAgentAction,
  bindTransferLeg,
  concludeTransfer,
  findTransfer,
  findTransfersOfCall,
  insertTransfer,
  markTransferAnswered,
  transferAction,
  type CallTransferRow,
} from "./transfer-state";
import { callerGoneTwiml, coldTransferTwiml, emptyTwiml, holdInConferenceTwiml, streamTwiml, whisperThenConferenceTwiml } from "@/server/carriers/twilio/twiml";

export type TransferDeps = {
  settings: TwilioRealtimeSettings;
  client: TwilioClient;
  getDb: () => Db;
  now: () => Date;
  log: (message: string, error?: unknown) => void;
  /** Reports the call ended once Twilio has said everything (engine.finishIfReady). */
  finishIfReady: (callId: string) => Promise<unknown>;
};

/** What the `transfer_call` tool answers the model, and — when the transfer goes ahead — how to start it. */
export type TransferDecision = { result: ToolCallResult; start?: () => Promise<void> };

/** Extra seconds past a warm transfer's ring timeout before we stop waiting for Twilio's word and take the caller back. */
const WARM_GUARD_SECONDS = 8;
const WHISPER_MAX_LENGTH = 600;

export type Transfers = ReturnType<typeof createTransfers>;

/**
 * Handing a live call to a person (docs/call-engine.md "Transfers"). Cold: the caller's call is redirected to
 * `<Dial>` the target with our number as caller ID; the agent's stream ends; the Dial's `action` says how it went and
 * a call nobody took goes back to the agent. Warm: the caller waits in a conference with hold music while we dial the
 * target; when the person answers they hear a whisper (a summary of the conversation so far, from the live
 * transcript) and join the room; nobody within the ring timeout (busy, declined, no answer) → the caller's call is
 * redirected back to the media stream and the agent, with the conversation so far, says so and offers the fallback.
 * State is in `call_transfers`: any instance may take any callback.
 */
export function createTransfers(deps: TransferDeps) {
  const timers = new Set<NodeJS.Timeout>();

  function later(ms: number, work: () => Promise<void>) {
    const timer = setTimeout(() => {
      timers.delete(timer);
      void work().catch((error: unknown) => deps.log("transfer timer failed", error));
    }, ms);
    timer.unref?.();
    timers.add(timer);
  }

  function resumeTwiml(callId: string, transferId: string): string {
    const token = createStreamToken({ callId, authToken: deps.settings.twilio.authToken, now: deps.now() });
    return streamTwiml({ streamUrl: mediaStreamPublicUrl(deps.settings), token, resume: `transfer:${transferId}` });
  }

  /** The caller goes back to the agent (warm: nobody answered). Only the first conclusion redirects. */
  async function returnCaller(row: CallTransferRow, outcome: "busy" | "no-answer" | "failed"): Promise<void> {
    const db = deps.getDb();
    const concluded = await concludeTransfer(db, { transferId: row.id, outcome, at: deps.now(), returned: true });
    if (!concluded) return;
    const call = await findTwilioCall(db, row.callId);
    if (!call?.callSid || isFinalStatus(call.status)) return;
    try {
      await deps.client.calls(call.callSid).update({ twiml: resumeTwiml(row.callId, row.id) });
    } catch (error) {
      if (twilioErrorCode(error) !== 21220) deps.log(`taking ${row.callId} back from the transfer failed`, error);
    }
  }

  async function startCold(params: { request: PlaceCallRequest; callSid: string; config: TransferConfig; target: TransferTarget; transferId: string }) {
    const { request, config, target } = params;
    const xml = coldTransferTwiml({
      destination: target.destination,
      callerId: request.from,
      timeoutSeconds: config.answerTimeoutSeconds ?? DEFAULT_COLD_DIAL_TIMEOUT_SECONDS,
      timeLimitSeconds: Math.max(60, request.agent.voice.maxCallSeconds),
      action: callbackUrl(deps.settings, "transfer-dial", request.callId, { transferId: params.transferId }),
      sip: isSipUri(target.destination),
    });
    await deps.client.calls(params.callSid).update({ twiml: xml });
  }

  async function startWarm(params: { request: PlaceCallRequest; callSid: string; config: TransferConfig; target: TransferTarget; transferId: string; conferenceName: string }) {
    const { request, config, target, transferId } = params;
    const timeout = config.answerTimeoutSeconds ?? DEFAULT_COLD_DIAL_TIMEOUT_SECONDS;
    // The caller first, so they hear hold music rather than silence while the person's phone rings.
    await deps.client.calls(params.callSid).update({ twiml: holdInConferenceTwiml({ conferenceName: params.conferenceName }) });
    const db = deps.getDb();
    try {
      const leg = await deps.client.calls.create({
        to: target.destination,
        from: request.from,
        url: callbackUrl(deps.settings, "transfer-answer", request.callId, { transferId }),
        method: "POST",
        statusCallback: callbackUrl(deps.settings, "transfer-status", request.callId, { transferId }),
        statusCallbackMethod: "POST",
        statusCallbackEvent: ["initiated", "ringing", "answered", "completed"],
        timeout,
        timeLimit: Math.max(60, request.agent.voice.maxCallSeconds),
      });
      await bindTransferLeg(db, { transferId, legCallSid: leg.sid });
    } catch (error) {
      deps.log(`dialing the transfer target of ${request.callId} failed`, error);
      const row = await findTransfer(db, { callId: request.callId, transferId });
      if (row) await returnCaller(row, "failed");
      return;
    }
    // Twilio reports the unanswered leg itself (no-answer after `timeout`); this is for the callback that never comes.
    later((timeout + WARM_GUARD_SECONDS) * 1000, async () => {
      const row = await findTransfer(deps.getDb(), { callId: request.callId, transferId });
      if (row?.outcome !== "dialing") return;
      await returnCaller(row, "no-answer");
      if (row.legCallSid) await deps.client.calls(row.legCallSid).update({ status: "canceled" }).catch(() => {});
    });
  }

  return {
    /**
     * The `transfer_call` tool: answers the model at once. An unknown target, an agent without transfers, or a time
     * outside the hours is answered (never thrown) so the model tells the caller and offers the fallback; a transfer
     * that goes ahead returns `start`, run once the model's hand-over line has played.
     */
    async decide(request: PlaceCallRequest, params: { callSid: string; target: string; reason: string }): Promise<TransferDecision> {
      const config = request.agent.transfer ?? null;
      const fallback = FALLBACK_OFFERS[config?.fallback ?? "callback"];
      if (!config || config.targets.length === 0) {
        return { result: { ok: false, message: `Transfers to a person are not set up for this agent. Do not promise one: ${fallback}.` } };
      }
      const target = findTransferTarget(config, params.target);
      if (!target) {
        const known = config.targets.map((t) => `"${t.label}"${t.whenToUse ? ` (${t.whenToUse})` : ""}`).join(", ");
        return { result: { ok: false, message: `There is no transfer target called "${params.target}". The targets are: ${known}. Call transfer_call again with one of these labels, or ${fallback}.` } };
      }
      const now = deps.now();
      const zone = config.timezone ?? request.agent.timezone ?? "UTC";
      if (!isWithinTransferHours(config, zone, now)) {
        await appendAgentAction(
          deps.getDb(),
          request.callId,
          transferAction({ targetLabel: target.label, mode: config.mode, startedAt: now, answeredAt: null, endedAt: now, humanLegSeconds: 0, outcome: "failed", reason: `outside hours (${config.hours})` }),
        );
        return { result: { ok: false, message: `Nobody from ${target.label} is available right now (they take calls ${config.hours}, ${zone}). Tell the caller, then ${fallback}.`, data: { fallback: config.fallback } } };
      }
      const transferId = newId("transfer");
      const conferenceName = `conference-${transferId}`;
      const start = async () => {
        const db = deps.getDb();
        await insertTransfer(db, {
          id: transferId,
          callId: request.callId,
          organizationId: request.organizationId,
          mode: config.mode,
          targetLabel: target.label,
          destination: target.destination,
          reason: params.reason.slice(0, 500),
          conferenceName: config.mode === "warm" ? conferenceName : null,
          startedAt: deps.now(),
        });
        if (config.mode === "cold") await startCold({ request, callSid: params.callSid, config, target, transferId });
        else await startWarm({ request, callSid: params.callSid, config, target, transferId, conferenceName });
      };
      const message =
        config.mode === "cold"
          ? `The transfer to ${target.label} goes ahead. Say one short sentence telling the caller you are putting them through to ${target.label} now, then stop talking: the call moves when you finish.`
          : `The transfer to ${target.label} goes ahead. Say one short sentence telling the caller you are getting a colleague from ${target.label} on the line and that they will hear hold music for a moment, then stop talking.`;
      return { result: { ok: true, message, data: { target: target.label, mode: config.mode } }, start };
    },

    /** The transfer callbacks (signature already checked by the engine). */
    async handleCallback(hook: TransferHook, params: { callId: string; transferId: string; form: Record<string, string> }): Promise<Response> {
      const db = deps.getDb();
      const row = await findTransfer(db, { callId: params.callId, transferId: params.transferId });
      if (!row) return new Response("Unknown transfer", { status: 404 });
      const form = params.form;
      switch (hook) {
        case "transfer-dial": {
          // The caller's own call: `<Dial action>` (twilio.com/docs/voice/twiml/dial#action).
          const call = await findTwilioCall(db, params.callId);
          if (!call || form.CallSid !== call.callSid) return new Response("This callback is about another call", { status: 409 });
          if (form.DialCallSid && /^CA[0-9a-f]{32}$/.test(form.DialCallSid)) await bindTransferLeg(db, { transferId: row.id, legCallSid: form.DialCallSid });
          const status = form.DialCallStatus ?? "failed";
          if (status === "completed" || status === "answered") {
            const seconds = Number(form.DialCallDuration ?? 0) || 0;
            await markTransferAnswered(db, { transferId: row.id, at: new Date(deps.now().getTime() - seconds * 1000) });
            await concludeTransfer(db, { transferId: row.id, outcome: "completed", at: deps.now(), humanLegSeconds: seconds });
            return twiml(`<?xml version="1.0" encoding="UTF-8"?><Response><Hangup/></Response>`);
          }
          // Nobody took it: back to the agent, which says so and offers the fallback.
          const concluded = await concludeTransfer(db, { transferId: row.id, outcome: status === "busy" || status === "no-answer" ? status : "failed", at: deps.now(), returned: true });
          return twiml(concluded ? resumeTwiml(params.callId, row.id) : emptyTwiml());
        }
        case "transfer-answer": {
          if (row.legCallSid && form.CallSid !== row.legCallSid) return new Response("This callback is about another call", { status: 409 });
          const whisper = await buildWhisper(db, row);
          if (!(await markTransferAnswered(db, { transferId: row.id, at: deps.now(), whisper }))) return twiml(callerGoneTwiml());
          return twiml(whisperThenConferenceTwiml({ whisper, conferenceName: row.conferenceName ?? `conference-${row.id}` }));
        }
        case "transfer-status": {
          if (row.legCallSid && form.CallSid !== row.legCallSid) return new Response("This callback is about another call", { status: 409 });
          const status = form.CallStatus ?? "";
          if (status === "completed" && row.outcome === "answered") {
            await concludeTransfer(db, { transferId: row.id, outcome: "completed", at: deps.now(), humanLegSeconds: Number(form.CallDuration ?? 0) || 0 });
            await deps.finishIfReady(params.callId);
          } else if (["busy", "no-answer", "failed", "canceled", "completed"].includes(status) && row.outcome === "dialing") {
            await returnCaller(row, status === "busy" || status === "no-answer" ? status : status === "completed" ? "no-answer" : "failed");
          }
          return twiml(emptyTwiml());
        }
      }
    },

    /** Transfers still waiting for Twilio's last word: the call is not reported ended before (or before `waitMs`). */
    async openLegs(callId: string): Promise<number> {
      const rows = await findTransfersOfCall(deps.getDb(), callId);
      return rows.filter((row) => row.outcome === "answered" || (row.outcome === "dialing" && row.mode === "warm")).length;
    },

    /** The caller hung up while a warm transfer was still ringing: the person's phone stops ringing. */
    async cancelOpenLegs(callId: string): Promise<void> {
      const db = deps.getDb();
      for (const row of await findTransfersOfCall(db, callId)) {
        if (row.outcome !== "dialing" || row.mode !== "warm") continue;
        await concludeTransfer(db, { transferId: row.id, outcome: "no-answer", at: deps.now() });
        if (row.legCallSid) await deps.client.calls(row.legCallSid).update({ status: "canceled" }).catch(() => {});
      }
    },

    /** What the agent is told when a transfer nobody answered hands the caller back to it. */
    async resumeNote(callId: string, transferId: string, request: PlaceCallRequest): Promise<string | null> {
      const row = await findTransfer(deps.getDb(), { callId, transferId });
      if (!row) return null;
      const why = row.outcome === "busy" ? "the line was busy or they declined" : row.outcome === "no-answer" ? "nobody answered in time" : "the call could not be put through";
      const fallback = FALLBACK_OFFERS[request.agent.transfer?.fallback ?? "callback"];
      return `[The transfer to ${row.targetLabel} was not answered: ${why}. You are back on the line with ${request.contact.name}, who heard hold music. Apologise in one sentence, tell them, and ${fallback}.]`;
    },

    close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

function twiml(xml: string): Response {
  return new Response(xml, { status: 200, headers: { "content-type": "text/xml" } });
}

/**
 * What the person hears before being put through: who is calling, why, and the caller's last words — from the live
 * transcript at the moment they answer. Built from the stored lines, not by a model: it is ready the instant the
 * person picks up and says nothing the caller did not.
 */
async function buildWhisper(db: Db, row: CallTransferRow): Promise<string> {
  const lines = await transcriptLinesOf(db, row.callId);
  const customer = lines.filter((line) => line.speaker === "customer").map((line) => line.text.trim()).filter(Boolean);
  const said = customer.slice(-2).join(" ");
  const parts = [
    `Incoming transfer for ${row.targetLabel}.`,
    row.reason ? `Reason: ${row.reason.replace(/\s+/g, " ").trim()}` : null,
    said ? `The caller just said: "${said}"` : null,
    "Connecting you now.",
  ].filter(Boolean);
  const text = parts.join(" ");
  return text.length > WHISPER_MAX_LENGTH ? `${text.slice(0, WHISPER_MAX_LENGTH - 1)}…` : text;
}
