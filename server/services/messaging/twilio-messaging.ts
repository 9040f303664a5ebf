import { getConfig } from "@/server/config/env";
import { appBaseUrl, appPort } from "@/server/config/settings";
import { startTwilioSimulator, type TwilioSimulator } from "@/server/simulators/twilio";
import type { SimOptOutHandling } from "@/server/simulators/twilio/messages";
import { isSignedByTwilio } from "@/server/carriers/twilio/signature";
import { TWILIO_API_ORIGIN, twilioPath } from "@/server/voice/twilio-realtime/settings";
import { createTwilioClient, twilioErrorCode } from "@/server/carriers/twilio/twilio-client";
import type { SmsOptOutHandling } from "./sms-keywords";
import { processSingleton } from "@/server/runtime/process-singleton";

/**
 * Paths of Twilio's messaging and inbound-voice webhooks given to Twilio (app/api/carriers/[carrier]/[...path]; the older
 * /api/twilio/… paths are still served: settings.ts `TWILIO_LEGACY_PREFIXES`).
 */
export const TWILIO_MESSAGE_STATUS_PATH = twilioPath("messages", "status");
export const TWILIO_MESSAGE_INBOUND_PATH = twilioPath("messages", "inbound");
export const TWILIO_VOICE_INBOUND_PATH = twilioPath("voice", "inbound");
export const TWILIO_VOICE_STATUS_PATH = twilioPath("voice", "status");

/** What SMS and inbound webhooks need of Twilio: REST credentials, the token callbacks are signed with, our public origin. */
export type TwilioMessagingSettings = {
  kind: "twilio" | "simulator";
  accountSid: string;
  authToken: string;
  restUsername: string;
  restPassword: string;
  apiBaseUrl: string;
  /** The origin Twilio reaches us at: callbacks are given (and verified) on it. */
  publicBaseUrl: string;
  /** Who answers STOP, START and HELP texts (SMS_OPT_OUT_HANDLING): Twilio's handling, or the app. */
  optOutHandling: SmsOptOutHandling;
};

export type SmsSendRequest = { to: string; from: string; body: string; statusCallback: string };
export type SmsSendResult = { sid: string; status: string; segments: number | null };

export class SmsSendError extends Error {
  constructor(
    message: string,
    /** Twilio refused for good (invalid number 21211, opted-out recipient 21610…): no retry. */
    readonly permanent: boolean,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "SmsSendError";
  }
}

export type SmsTransport = { send(request: SmsSendRequest): Promise<SmsSendResult> };

/** Twilio's "attempt to send to unsubscribed recipient": the carrier-level opt-out of this number. */
export const TWILIO_UNSUBSCRIBED_RECIPIENT = "21610";

/** The official `twilio` client's Messages resource (https://www.twilio.com/docs/messaging/api/message-resource#create-a-message-resource). */
export function createTwilioSmsTransport(settings: TwilioMessagingSettings): SmsTransport {
  const client = createTwilioClient({ twilio: settings });
  return {
    async send(request) {
      try {
        const message = await client.messages.create({ to: request.to, from: request.from, body: request.body, statusCallback: request.statusCallback });
        return { sid: message.sid, status: message.status, segments: Number(message.numSegments) || null };
      } catch (error) {
        const code = twilioErrorCode(error);
        const status = (error as { status?: number }).status ?? 0;
        // A 4xx with an error code is Twilio's final answer about this message; 5xx, 429 or no answer may pass later.
        const permanent = code !== null && status >= 400 && status < 500 && status !== 429;
        throw new SmsSendError(`Twilio: ${error instanceof Error ? error.message : String(error)}`.slice(0, 500), permanent, code === null ? null : String(code));
      }
    },
  };
}

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** Settings of a real (or test-configured) Twilio account, or null when SMS goes to the embedded simulator. */
export function readTwilioMessagingSettings(): TwilioMessagingSettings | null {
  const config = getConfig();
  const useTwilio = config.SMS_TRANSPORT === "twilio" || (config.SMS_TRANSPORT === "auto" && Boolean(config.TWILIO_ACCOUNT_SID));
  if (!useTwilio) return null;
  if (!config.TWILIO_ACCOUNT_SID || !config.TWILIO_AUTH_TOKEN) throw new Error("SMS_TRANSPORT=twilio needs TWILIO_ACCOUNT_SID and TWILIO_AUTH_TOKEN (docs/sequences.md).");
  return {
    kind: "twilio",
    accountSid: config.TWILIO_ACCOUNT_SID,
    authToken: config.TWILIO_AUTH_TOKEN,
    restUsername: config.TWILIO_API_KEY ?? config.TWILIO_ACCOUNT_SID,
    restPassword: config.TWILIO_API_SECRET ?? config.TWILIO_AUTH_TOKEN,
    apiBaseUrl: config.TWILIO_API_BASE_URL ? new URL(config.TWILIO_API_BASE_URL).origin : TWILIO_API_ORIGIN,
    publicBaseUrl: trimSlash(config.PUBLIC_BASE_URL ?? appBaseUrl()),
    optOutHandling: config.SMS_OPT_OUT_HANDLING,
  };
}

/** The simulator's account handles keywords as SMS_OPT_OUT_HANDLING says the real one does. */
const SIMULATED_OPT_OUT_HANDLING: Record<SmsOptOutHandling, SimOptOutHandling> = {
  "twilio-default": { kind: "default" },
  "advanced-opt-out": { kind: "advanced-opt-out" },
  app: { kind: "none" },
};

/** Process-wide (server/runtime/process-singleton.ts); forgotten when it stops or fails to start. */
const holder = () => processSingleton("smsSimulator", () => ({ simulator: undefined as Promise<TwilioSimulator> | undefined }));

/**
 * The embedded default: the project's Twilio simulator in this process on loopback (nothing leaves the machine). Its
 * callbacks are addressed to our public origin, as Twilio's would be, and delivered to this server's port.
 */
function embeddedSimulator(publicBaseUrl: string): Promise<TwilioSimulator> {
  const embedded = holder();
  embedded.simulator ??= startTwilioSimulator({
    messagingOptOutHandling: SIMULATED_OPT_OUT_HANDLING[getConfig().SMS_OPT_OUT_HANDLING],
    resolvePublicUrl: (url) => (url.startsWith(publicBaseUrl) ? `http://127.0.0.1:${appPort()}${url.slice(publicBaseUrl.length)}` : url),
  }).catch((error: unknown) => {
    embedded.simulator = undefined;
    throw error;
  });
  return embedded.simulator;
}

export type Messaging = { settings: TwilioMessagingSettings; transport: SmsTransport; simulator: TwilioSimulator | null };

/** The process's SMS messaging: Twilio when configured (SMS_TRANSPORT), else the embedded simulator. */
export async function getMessaging(): Promise<Messaging> {
  const configured = readTwilioMessagingSettings();
  if (configured) return { settings: configured, transport: createTwilioSmsTransport(configured), simulator: null };
  const publicBaseUrl = trimSlash(appBaseUrl());
  const simulator = await embeddedSimulator(publicBaseUrl);
  const settings: TwilioMessagingSettings = {
    kind: "simulator",
    accountSid: simulator.accountSid,
    authToken: simulator.authToken,
    restUsername: simulator.accountSid,
    restPassword: simulator.authToken,
    apiBaseUrl: simulator.origin,
    publicBaseUrl,
    optOutHandling: getConfig().SMS_OPT_OUT_HANDLING,
  };
  return { settings, transport: createTwilioSmsTransport(settings), simulator };
}

/** Stops the embedded simulator (shutdown; tests). */
export async function stopEmbeddedSmsSimulator(): Promise<void> {
  const embedded = holder();
  const simulator = await embedded.simulator?.catch(() => null);
  embedded.simulator = undefined;
  await simulator?.stop();
}

/**
 * Trust boundary of every messaging and inbound-voice webhook: X-Twilio-Signature over our public URL + the path and
 * query received, and the form (the voice engine's check, server/carriers/twilio/signature.ts).
 */
export function isSignedTwilioWebhook(settings: TwilioMessagingSettings, params: { pathAndQuery: string; signature: string | null; form: Record<string, string> }): boolean {
  return isSignedByTwilio({ publicBaseUrl: settings.publicBaseUrl, twilio: settings }, params);
}
