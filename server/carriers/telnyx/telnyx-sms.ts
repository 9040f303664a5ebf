import { SmsSendError, type SmsTransport } from "@/server/services/messaging/twilio-messaging";
import { getTelnyxAccount, TELNYX_MESSAGE_STATUS_PATH, type TelnyxAccount } from "./telnyx-account";

/** Telnyx's error as the official client throws it: the HTTP status and Telnyx's `errors[].code`. */
export function telnyxFailure(error: unknown): { status: number; code: string | null; message: string } {
  const { status, error: body } = (error ?? {}) as { status?: number; error?: { errors?: Array<{ code?: string; detail?: string; title?: string }> } };
  const first = body?.errors?.[0];
  return { status: status ?? 0, code: first?.code ?? null, message: first?.detail ?? first?.title ?? (error instanceof Error ? error.message : String(error)) };
}

/**
 * SMS through Telnyx Messaging with the official client (`messages.send`, https://developers.telnyx.com/api/messaging/send-message):
 * the delivery comes back to `statusCallback` as `message.sent` / `message.finalized` (./telnyx-messaging-webhooks.ts).
 * A 4xx with Telnyx's error code (40310 invalid `to`, 40300 opted-out recipient…) is final; 5xx, 429 or no answer may pass later.
 */
export function createTelnyxSmsTransport(account: Pick<TelnyxAccount, "client" | "messagingProfileId">): SmsTransport {
  return {
    async send(request) {
      try {
        const { data } = await account.client.messages.send({
          from: request.from,
          to: request.to,
          text: request.body,
          webhook_url: request.statusCallback,
          ...(account.messagingProfileId ? { messaging_profile_id: account.messagingProfileId } : {}),
        });
        return { sid: data?.id ?? "", status: data?.to?.[0]?.status ?? "queued", segments: data?.parts ?? null };
      } catch (error) {
        const failure = telnyxFailure(error);
        const permanent = failure.code !== null && failure.status >= 400 && failure.status < 500 && failure.status !== 429;
        throw new SmsSendError(`Telnyx: ${failure.message}`.slice(0, 500), permanent, failure.code);
      }
    },
  };
}

/** What an SMS step needs of Telnyx: the transport and where delivery reports come (PUBLIC_BASE_URL + our path). */
export async function getTelnyxSms(): Promise<{ transport: SmsTransport; statusUrl: string }> {
  const account = await getTelnyxAccount();
  return { transport: createTelnyxSmsTransport(account), statusUrl: `${account.publicBaseUrl}${TELNYX_MESSAGE_STATUS_PATH}` };
}
