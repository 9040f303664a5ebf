import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { findActiveNumber } from "@/db/queries/numbers";
import { twilioCalls } from "@/db/schema";
import { findCallbackFallback, startInboundCall, type CallbackFallback } from "@/server/services/call-engine/inbound-call";
import { applyStatusCallback, isFinalStatus, type TwilioCallRow } from "./call-state";
import { callbackUrl, mediaStreamPublicUrl, twilioHookOf, TWILIO_URL_PREFIX, type TwilioRealtimeSettings } from "./settings";
import { isSignedByTwilio, TWILIO_SIGNATURE_HEADER } from "@/server/carriers/twilio/signature";
import { createStreamToken } from "./stream-token";
import { emptyTwiml, SAY_VOICE, streamTwiml, voiceResponse } from "@/server/carriers/twilio/twiml";

/**
 * Paths of the numbers' voice webhooks (set them on each number in Twilio): `A call comes in` →
 * `PUBLIC_BASE_URL/api/carriers/twilio/voice/inbound`, `Call status changes` →
 * `PUBLIC_BASE_URL/api/carriers/twilio/voice/status` (the older /api/twilio/voice/… still work: settings.ts aliases).
 */
export const TWILIO_VOICE_WEBHOOK_PREFIX = `${TWILIO_URL_PREFIX}/voice`;
export const TWILIO_VOICE_HOOKS = ["inbound", "status", "recorded"] as const;

export type InboundVoiceDeps = {
  settings: TwilioRealtimeSettings;
  getDb: () => Db;
  now: () => Date;
  finishIfReady: (callId: string) => Promise<unknown>;
};

const CALL_SID = /^CA[0-9a-f]{32}$/;
const E164 = /^\+[1-9]\d{6,14}$/;

async function findByCallSid(db: Db, callSid: string): Promise<TwilioCallRow | null> {
  const [row] = await db.select().from(twilioCalls).where(eq(twilioCalls.callSid, callSid)).limit(1);
  return row ?? null;
}

/**
 * A known caller of a number that takes messages: the message, the beep, their message recorded (at most two minutes,
 * five seconds of silence end it) and reported to the call's recording callback; `recorded` then ends the call.
 */
export function takeMessageTwiml(params: { fallback: CallbackFallback; recordingStatusCallback: string; action: string }): string {
  const response = voiceResponse();
  response.say({ voice: SAY_VOICE as never }, params.fallback.message.replace(/\s*Goodbye\.?\s*$/, "") + " Please leave a message after the tone.");
  response.record({ maxLength: 120, timeout: 5, playBeep: true, action: params.action, method: "POST", recordingStatusCallback: params.recordingStatusCallback, recordingStatusCallbackMethod: "POST" });
  return response.toString();
}

/** The fallback as TwiML: the message, then the forward (`<Dial>`) or the end of the call. */
export function fallbackTwiml(fallback: CallbackFallback): string {
  const response = voiceResponse();
  if (fallback.mode === "forward" && fallback.forwardTo) {
    response.say({ voice: SAY_VOICE as never }, fallback.message);
    response.dial(fallback.forwardTo);
  } else {
    response.say({ voice: SAY_VOICE as never }, fallback.message);
    response.hangup();
  }
  return response.toString();
}

/** A call to a number no organization owns: refused as busy, nothing said (Twilio's `<Reject>`), before it is answered. */
export function rejectTwiml(): string {
  const response = voiceResponse();
  response.reject({ reason: "busy" });
  return response.toString();
}

function twimlResponse(xml: string): Response {
  return new Response(xml, { status: 200, headers: { "content-type": "text/xml" } });
}

/**
 * Twilio's webhooks for calls *to* our numbers (docs/sequences.md "Callbacks"), verified like every Twilio callback
 * (X-Twilio-Signature over PUBLIC_BASE_URL + the path and query, and the form: unsigned or tampered → 403, nothing read
 * or stored). `inbound`: the agent that last called the caller from this number takes the call — the answer is the
 * same `<Connect><Stream>` as an outbound call's, with a stream token for the new inbound call — or the number's
 * fallback answers. `status`: the call's status, by CallSid (an inbound call has no callId in its URLs); the end of a
 * call an agent took is reported like an outbound call's.
 */
export function createInboundVoiceHandler(deps: InboundVoiceDeps) {
  return async function handleInboundVoiceWebhook(request: Request): Promise<Response> {
    const url = new URL(request.url);
    const hook = twilioHookOf(url.pathname, "voice") ?? "";
    if (request.method !== "POST" || !(TWILIO_VOICE_HOOKS as readonly string[]).includes(hook)) return new Response("Not found", { status: 404 });
    const text = (await request.text()).slice(0, 64_000);
    const form = Object.fromEntries(new URLSearchParams(text));
    const signed = isSignedByTwilio(deps.settings, { pathAndQuery: url.pathname + url.search, signature: request.headers.get(TWILIO_SIGNATURE_HEADER), form });
    if (!signed) return new Response("Invalid Twilio signature", { status: 403 });
    const callSid = form.CallSid ?? "";
    if (!CALL_SID.test(callSid)) return new Response("Missing or invalid CallSid", { status: 400 });
    const db = deps.getDb();
    const existing = await findByCallSid(db, callSid);

    if (hook === "status") {
      if (!existing) return twimlResponse(emptyTwiml());
      const updated = await applyStatusCallback(db, { callId: existing.callId, form, now: deps.now() });
      if (updated && isFinalStatus(updated.status)) await deps.finishIfReady(existing.callId);
      return twimlResponse(emptyTwiml());
    }

    if (hook === "recorded") {
      // <Record> is over (the recording itself comes to the call's recording callback): thank and hang up.
      const response = voiceResponse();
      response.say({ voice: SAY_VOICE as never }, "Thank you. Goodbye.");
      response.hangup();
      return twimlResponse(response.toString());
    }

    const from = form.From ?? "";
    const to = form.To ?? "";
    if (!E164.test(to)) return twimlResponse(rejectTwiml());
    if (!E164.test(from)) {
      // A withheld or non-E.164 caller ID ("anonymous", a short code) is an unknown caller: the fallback of the number
      // of the organization that owns it; a number nobody owns refuses the call.
      const owner = await findActiveNumber(db, to);
      if (!owner?.inbound) return twimlResponse(rejectTwiml());
      return twimlResponse(fallbackTwiml(await findCallbackFallback(db, { organizationId: owner.organizationId, phoneNumber: to })));
    }
    // Twilio asks again for the same call (a retry after a timeout): the same answer for the call already started.
    let callId = existing && !isFinalStatus(existing.status) ? existing.callId : null;
    if (!callId) {
      const decision = await startInboundCall(db, { from, to, providerCallId: callSid, now: deps.now(), engine: "twilio-realtime" });
      if (decision.kind === "reject") return twimlResponse(rejectTwiml());
      if (decision.kind === "fallback") return twimlResponse(fallbackTwiml(decision.fallback));
      if (decision.kind === "message") {
        return twimlResponse(
          takeMessageTwiml({
            fallback: decision.fallback,
            recordingStatusCallback: callbackUrl(deps.settings, "recording", decision.callId),
            action: `${deps.settings.publicBaseUrl}${TWILIO_VOICE_WEBHOOK_PREFIX}/recorded`,
          }),
        );
      }
      callId = decision.callId;
    }
    const token = createStreamToken({ callId, authToken: deps.settings.twilio.authToken, now: deps.now() });
    return twimlResponse(streamTwiml({ streamUrl: mediaStreamPublicUrl(deps.settings), token }));
  };
}
