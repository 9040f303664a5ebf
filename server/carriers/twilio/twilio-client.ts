import twilio from "twilio";
import { TWILIO_API_ORIGIN, type TwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";

type RequestOptions<TData> = import("twilio/lib/base/RequestClient").RequestOptions<TData>;

export type TwilioClient = ReturnType<typeof twilio>;

/**
 * The official client's HTTP layer, sending `https://api.twilio.com/…` to the configured origin instead: the real
 * API in production (unchanged), a local Twilio simulator in tests. Everything else (auth, form encoding, errors
 * as RestException with Twilio's error code) is the package's own.
 */
class OriginRequestClient extends twilio.RequestClient {
  constructor(private readonly origin: string) {
    super({ timeout: 15_000 });
  }

  override request<TData>(opts: RequestOptions<TData>) {
    const uri = opts.uri.startsWith(TWILIO_API_ORIGIN) ? this.origin + opts.uri.slice(TWILIO_API_ORIGIN.length) : opts.uri;
    return super.request<TData>({ ...opts, uri });
  }
}

export function createTwilioClient(settings: Pick<TwilioRealtimeSettings, "twilio">): TwilioClient {
  const { restUsername, restPassword, accountSid, apiBaseUrl } = settings.twilio;
  return twilio(restUsername, restPassword, {
    accountSid,
    ...(apiBaseUrl !== TWILIO_API_ORIGIN ? { httpClient: new OriginRequestClient(apiBaseUrl) } : {}),
  });
}

/** Twilio's REST error code on a failed request (21211 invalid number…), if the error is one. */
export function twilioErrorCode(error: unknown): number | null {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "number" ? code : null;
}
