import http from "node:http";
import type { AddressInfo } from "node:net";
import { createTwilioNumberProvider } from "@/server/carriers/twilio/twilio-numbers";
import type { NumberProvider } from "@/server/services/numbers/number-provider";
import { startTwilioSimulator, type TwilioSimulator } from "@/server/simulators/twilio";
import { isSignedByTwilio } from "@/server/carriers/twilio/signature";
import type { TwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import { createTwilioClient, type TwilioClient } from "@/server/carriers/twilio/twilio-client";

/** The public origin the numbers' webhooks are given on; the simulator delivers them to the receiver on loopback. */
export const PUBLIC_BASE_URL = "https://numbers.example.test";

export type ReceivedWebhook = { method: string; pathAndQuery: string; signature: string | null; form: Record<string, string>; signed: boolean };

export type NumbersStack = {
  twilio: TwilioSimulator;
  /** The app's adapter over the official client (server/carriers/twilio/twilio-numbers.ts). */
  provider: NumberProvider;
  /** The official client itself, for what the adapter does not do. */
  client: TwilioClient;
  /** Every request the receiver got, with its X-Twilio-Signature checked by the app's verifier. */
  received: ReceivedWebhook[];
  /** Whether a request with this signature, path and form would pass the app's verifier (tamper checks). */
  isSigned(params: { pathAndQuery: string; signature: string | null; form: Record<string, string> }): boolean;
  stop(): Promise<void>;
};

/**
 * A Twilio simulator driven through the app's number adapter, and a tiny receiver standing in for the app's webhooks:
 * `/voice…` answers TwiML that hangs up, `/sms…` replies "Thanks", anything else 200.
 */
export async function startNumbersStack(options: { speed?: number } = {}): Promise<NumbersStack> {
  const received: ReceivedWebhook[] = [];
  let settings: Pick<TwilioRealtimeSettings, "publicBaseUrl" | "twilio"> | null = null;
  const isSigned: NumbersStack["isSigned"] = (params) => isSignedByTwilio(settings!, params);
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const form = Object.fromEntries(new URLSearchParams(Buffer.concat(chunks).toString("utf8")));
      const pathAndQuery = req.url ?? "/";
      const signature = (req.headers["x-twilio-signature"] as string | undefined) ?? null;
      received.push({ method: req.method ?? "", pathAndQuery, signature, form, signed: isSigned({ pathAndQuery, signature, form }) });
      const twiml = pathAndQuery.startsWith("/voice") ? "<Response><Hangup/></Response>" : pathAndQuery.startsWith("/sms") ? "<Response><Message>Thanks</Message></Response>" : null;
      if (twiml) res.writeHead(200, { "content-type": "text/xml" }).end(twiml);
      else res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const receiverOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const twilio = await startTwilioSimulator({ speed: options.speed ?? 100, resolvePublicUrl: (url) => url.replace(PUBLIC_BASE_URL, receiverOrigin), log: () => {} });
  const twilioSettings = { accountSid: twilio.accountSid, authToken: twilio.authToken, restUsername: twilio.accountSid, restPassword: twilio.authToken, apiBaseUrl: twilio.origin };
  settings = { publicBaseUrl: PUBLIC_BASE_URL, twilio: twilioSettings };
  return {
    twilio,
    provider: createTwilioNumberProvider({ twilio: twilioSettings }),
    client: createTwilioClient({ twilio: twilioSettings }),
    received,
    isSigned,
    stop: async () => {
      await twilio.stop();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The carrier error a provider call failed with (NumberProviderError), or a failure of the test when it succeeded. */
export async function providerError(run: Promise<unknown>): Promise<{ code: string | null; permanent: boolean; message: string }> {
  try {
    await run;
  } catch (error) {
    const { code, permanent, message } = error as { code: string | null; permanent: boolean; message: string };
    return { code, permanent, message };
  }
  throw new Error("expected the carrier to refuse");
}
