import { inspect } from "node:util";

export const DEFAULT_REALTIME_MODEL = "gpt-realtime";
export const DEFAULT_SPEECH_MODEL = "gpt-4o-mini-tts";
export const TWILIO_API_ORIGIN = "https://api.twilio.com";
/** CALL_QUALITY_DEAD_AIR_SECONDS's default (server/config/settings/call-engine.ts declares the setting). */
export const DEFAULT_DEAD_AIR_MS = 3000;
const OPENAI_API_BASE_URL = "https://api.openai.com/v1";

/** Everything `VOICE_ENGINE=twilio-realtime` needs, read once at start. Secrets are redacted from inspect/JSON. */
export type TwilioRealtimeSettings = {
  twilio: {
    accountSid: string;
    /** Verifies X-Twilio-Signature (Twilio signs callbacks with the account's auth token) and, without an API key, authenticates REST. */
    authToken: string;
    /** REST credentials: an API key + secret when given, else the account SID + auth token. */
    restUsername: string;
    restPassword: string;
    /** `https://api.twilio.com`, or a simulator's origin (tests). */
    apiBaseUrl: string;
  };
  /** The public origin Twilio reaches us at (`https://…`); callbacks are verified against it, the media stream is `wss://` on it. */
  publicBaseUrl: string;
  openai: {
    apiKey: string;
    model: string;
    /** The Realtime WebSocket URL (`wss://api.openai.com/v1/realtime?model=…`, or a simulator's). */
    realtimeUrl: string;
    /** The REST base (`https://api.openai.com/v1`): the disclosures' text-to-speech. */
    baseUrl: string;
    /** The text-to-speech model that speaks the disclosures word for word (DISCLOSURE_SPEECH_MODEL). */
    speechModel: string;
  };
  /** Call-quality measurement: silence on both sides longer than this counts as dead air (CALL_QUALITY_DEAD_AIR_SECONDS). */
  quality: { deadAirMs: number };
};

export class VoiceSettingsError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VoiceSettingsError";
  }
}

function trimmed(env: Readonly<Record<string, string | undefined>>, name: string): string | undefined {
  const value = env[name]?.trim();
  return value ? value : undefined;
}

function httpOrigin(value: string, name: string, problems: string[]): string | null {
  try {
    const url = new URL(value);
    if (url.protocol !== "https:" && url.protocol !== "http:") throw new Error("not http(s)");
    return url.origin;
  } catch {
    problems.push(`${name} must be an http(s) URL`);
    return null;
  }
}

/**
 * Reads and validates the settings of the real voice engine (the configuration module applies it at start, see
 * server/config/env.ts; `getVoiceEngine()` reads the engine's settings through it). Throws a `VoiceSettingsError` naming every missing or invalid setting. Also requires the LLM analyser's
 * settings: the rule-based analyser only understands the simulator's scripted conversations.
 */
export function readTwilioRealtimeSettings(env: Readonly<Record<string, string | undefined>>): TwilioRealtimeSettings {
  const problems: string[] = [];
  const missing: string[] = [];
  const need = (name: string) => {
    const value = trimmed(env, name);
    if (!value) missing.push(name);
    return value ?? "";
  };
  const accountSid = need("TWILIO_ACCOUNT_SID");
  if (accountSid && !/^AC[0-9a-fA-F]{32}$/.test(accountSid)) problems.push("TWILIO_ACCOUNT_SID must look like AC followed by 32 hex digits");
  const authToken = need("TWILIO_AUTH_TOKEN");
  const apiKey = trimmed(env, "TWILIO_API_KEY");
  const apiSecret = trimmed(env, "TWILIO_API_SECRET");
  if (apiKey && !apiSecret) missing.push("TWILIO_API_SECRET (TWILIO_API_KEY is set)");
  if (apiSecret && !apiKey) missing.push("TWILIO_API_KEY (TWILIO_API_SECRET is set)");
  if (apiKey && !/^SK[0-9a-fA-F]{32}$/.test(apiKey)) problems.push("TWILIO_API_KEY must look like SK followed by 32 hex digits");

  const publicRaw = need("PUBLIC_BASE_URL");
  let publicBaseUrl = "";
  if (publicRaw) {
    try {
      const url = new URL(publicRaw);
      if (url.protocol !== "https:") throw new Error("not https");
      publicBaseUrl = url.origin + url.pathname.replace(/\/+$/, "");
    } catch {
      problems.push("PUBLIC_BASE_URL must be the https:// URL Twilio reaches this service at (media streams need wss:// on the same host)");
    }
  }

  const openaiKey = need("OPENAI_API_KEY");
  const model = trimmed(env, "REALTIME_MODEL") ?? DEFAULT_REALTIME_MODEL;
  const openaiBase = trimmed(env, "OPENAI_BASE_URL") ?? OPENAI_API_BASE_URL;
  let realtimeUrl = "";
  try {
    const base = new URL(openaiBase.replace(/\/+$/, "") + "/realtime");
    base.protocol = base.protocol === "http:" ? "ws:" : "wss:";
    base.searchParams.set("model", model);
    realtimeUrl = base.toString();
  } catch {
    problems.push("OPENAI_BASE_URL must be an http(s) URL");
  }
  const apiBaseUrl = httpOrigin(trimmed(env, "TWILIO_API_BASE_URL") ?? TWILIO_API_ORIGIN, "TWILIO_API_BASE_URL", problems) ?? TWILIO_API_ORIGIN;

  const deadAirSeconds = Number(trimmed(env, "CALL_QUALITY_DEAD_AIR_SECONDS") ?? String(DEFAULT_DEAD_AIR_MS / 1000));
  if (!(deadAirSeconds > 0 && deadAirSeconds <= 60)) problems.push("CALL_QUALITY_DEAD_AIR_SECONDS must be a number of seconds between 0 and 60");

  if (!trimmed(env, "ANALYSIS_LLM_URL")) missing.push("ANALYSIS_LLM_URL (real conversations need the LLM analyser)");
  if (!trimmed(env, "ANALYSIS_LLM_MODEL")) missing.push("ANALYSIS_LLM_MODEL (real conversations need the LLM analyser)");

  if (missing.length > 0 || problems.length > 0) {
    const parts = [
      ...(missing.length ? [`missing: ${missing.join(", ")}`] : []),
      ...(problems.length ? [`invalid: ${problems.join("; ")}`] : []),
    ];
    throw new VoiceSettingsError(`VOICE_ENGINE=twilio-realtime cannot start — ${parts.join(" — ")}. See docs/voice-twilio.md.`);
  }

  const settings: TwilioRealtimeSettings = {
    twilio: {
      accountSid,
      authToken,
      restUsername: apiKey ?? accountSid,
      restPassword: apiSecret ?? authToken,
      apiBaseUrl,
    },
    publicBaseUrl,
    openai: { apiKey: openaiKey, model, realtimeUrl, baseUrl: openaiBase.replace(/\/+$/, ""), speechModel: trimmed(env, "DISCLOSURE_SPEECH_MODEL") ?? DEFAULT_SPEECH_MODEL },
    quality: { deadAirMs: deadAirSeconds * 1000 },
  };
  return redactSecrets(settings);
}

const REDACTED = "[redacted]";

/** Secrets never reach a log: `console.log(settings)` and `JSON.stringify(settings)` show them redacted. */
function redactSecrets(settings: TwilioRealtimeSettings): TwilioRealtimeSettings {
  const safe = () => ({
    twilio: { accountSid: settings.twilio.accountSid, authToken: REDACTED, restUsername: settings.twilio.restUsername, restPassword: REDACTED, apiBaseUrl: settings.twilio.apiBaseUrl },
    publicBaseUrl: settings.publicBaseUrl,
    openai: { apiKey: REDACTED, model: settings.openai.model, realtimeUrl: settings.openai.realtimeUrl, baseUrl: settings.openai.baseUrl, speechModel: settings.openai.speechModel },
    quality: settings.quality,
  });
  Object.defineProperty(settings, "toJSON", { value: safe, enumerable: false });
  Object.defineProperty(settings, inspect.custom, { value: () => safe(), enumerable: false });
  return settings;
}

/** The media-stream URL Twilio connects to: the public origin as `wss://`, our media path. */
export function mediaStreamPublicUrl(settings: Pick<TwilioRealtimeSettings, "publicBaseUrl">): string {
  return `${settings.publicBaseUrl.replace(/^https:/, "wss:")}${TWILIO_MEDIA_PATH}`;
}

/**
 * Twilio's URL family (issue 36, docs/carriers.md "URLs"): every webhook under `/api/carriers/twilio/<area>/<hook>`
 * (app/api/carriers/[carrier]/[...path]/route.ts), the media WebSocket at `/ws/carriers/twilio` (node-server.ts's
 * upgrade router: under /ws/, where no Next.js route is). New calls and numbers are given these URLs.
 */
export const TWILIO_URL_PREFIX = "/api/carriers/twilio";
/**
 * The older paths of each area, still served the same way (aliases): numbers and calls configured with them keep
 * working. The signature is checked over the path Twilio actually requested, so both families verify.
 */
export const TWILIO_LEGACY_PREFIXES = {
  calls: "/api/voice/twilio",
  voice: "/api/twilio/voice",
  messages: "/api/twilio/messages",
  numbers: "/api/twilio/numbers",
} as const;
export type TwilioUrlArea = keyof typeof TWILIO_LEGACY_PREFIXES;
export const TWILIO_URL_AREAS = Object.keys(TWILIO_LEGACY_PREFIXES) as TwilioUrlArea[];

/** The path of a hook of an area in the current family: `/api/carriers/twilio/<area>/<hook>`. */
export function twilioPath(area: TwilioUrlArea, hook: string): string {
  return `${TWILIO_URL_PREFIX}/${area}/${hook}`;
}

/** The hook a path names in that area, under the current family or the area's alias; null for any other path. */
export function twilioHookOf(pathname: string, area: TwilioUrlArea): string | null {
  for (const prefix of [`${TWILIO_URL_PREFIX}/${area}/`, `${TWILIO_LEGACY_PREFIXES[area]}/`]) {
    if (pathname.startsWith(prefix)) {
      const hook = pathname.slice(prefix.length);
      return hook && !hook.includes("/") ? hook : null;
    }
  }
  return null;
}

/** Twilio's per-call callbacks (engine.ts `handleCallback`). */
export const TWILIO_CALLBACK_PREFIX = `${TWILIO_URL_PREFIX}/calls`;
/**
 * Transfers (transfer.ts): the cold `<Dial action>` on the caller's call, and the warm transfer's human leg — its
 * TwiML when the person answers (the whisper, then the conference) and its status.
 */
export const TRANSFER_HOOKS = ["transfer-dial", "transfer-answer", "transfer-status"] as const;
export type TransferHook = (typeof TRANSFER_HOOKS)[number];
export const TWILIO_MEDIA_PATH = "/ws/carriers/twilio";
/** The media WebSocket's older path, still served (an alias of TWILIO_MEDIA_PATH). */
export const TWILIO_LEGACY_MEDIA_PATH = "/ws/voice/twilio";
export const TWILIO_HOOKS = ["twiml", "status", "amd", "recording", ...TRANSFER_HOOKS] as const;
export type TwilioHook = (typeof TWILIO_HOOKS)[number];

export function callbackUrl(settings: Pick<TwilioRealtimeSettings, "publicBaseUrl">, hook: TwilioHook, callId: string, extra: Record<string, string> = {}): string {
  const query = new URLSearchParams({ callId, ...extra });
  return `${settings.publicBaseUrl}${TWILIO_CALLBACK_PREFIX}/${hook}?${query.toString()}`;
}
