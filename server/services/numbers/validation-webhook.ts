import type { Db } from "@/db";
import { readSignedTwilioForm } from "@/server/services/messaging/twilio-webhooks";
import type { Messaging } from "@/server/services/messaging/twilio-messaging";
import { twilioHookOf } from "@/server/voice/twilio-realtime/settings";
import { completeCallerIdValidation } from "./caller-id-validation";

const CALL_SID = /^CA[0-9a-f]{32}$/;

/**
 * `POST /api/carriers/twilio/numbers/validation` (alias /api/twilio/numbers/validation): Twilio's result of a caller-ID validation call (the ValidationRequest's
 * StatusCallback: `CallSid`, `VerificationStatus` success|failed, `OutgoingCallerIdSid`). Trust boundary: an unsigned
 * or tampered request is refused (403) and changes nothing.
 */
export async function handleNumberValidationWebhook(request: Request, deps: { db: Db; now: () => Date; messaging: () => Promise<Messaging> }): Promise<Response> {
  if (request.method !== "POST" || twilioHookOf(new URL(request.url).pathname, "numbers") !== "validation") return new Response("Not found", { status: 404 });
  const form = await readSignedTwilioForm(request, await deps.messaging());
  if (!form) return new Response("Invalid Twilio signature", { status: 403 });
  const callSid = form.CallSid ?? "";
  const status = form.VerificationStatus ?? "";
  if (!CALL_SID.test(callSid) || (status !== "success" && status !== "failed")) return new Response("Missing CallSid or VerificationStatus", { status: 400 });
  const outgoingCallerIdSid = /^PN[0-9a-f]{32}$/.test(form.OutgoingCallerIdSid ?? "") ? form.OutgoingCallerIdSid! : null;
  await completeCallerIdValidation(deps.db, { validationCallSid: callSid, succeeded: status === "success", outgoingCallerIdSid, now: deps.now() });
  return new Response(null, { status: 204 });
}
