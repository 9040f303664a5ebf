import Telnyx from "telnyx";
import { getConfig } from "@/server/config/env";
import { appBaseUrl, appPort } from "@/server/config/settings";
import { processSingleton } from "@/server/runtime/process-singleton";
import { startTelnyxSimulator, type TelnyxSimulator } from "@/server/simulators/telnyx";

/** Telnyx's REST base (https://developers.telnyx.com/development/api-fundamentals/api-overview). */
export const TELNYX_API_BASE_URL = "https://api.telnyx.com/v2";
/** Telnyx's URL family: `/api/carriers/telnyx/<area>/<hook>` (docs/carriers.md "URLs"). */
export const TELNYX_URL_PREFIX = "/api/carriers/telnyx";
export const TELNYX_MESSAGE_STATUS_PATH = `${TELNYX_URL_PREFIX}/messages/status`;
export const TELNYX_MESSAGE_INBOUND_PATH = `${TELNYX_URL_PREFIX}/messages/inbound`;

/** The platform's Telnyx account as the app uses it: the official client, the webhook key, our public origin. */
export type TelnyxAccount = {
  kind: "telnyx" | "simulator";
  client: Telnyx;
  /** The account's webhook public key, base64 (TELNYX_PUBLIC_KEY, or the simulator's). */
  publicKey: string;
  /** The origin Telnyx reaches us at: webhook URLs are given on it. */
  publicBaseUrl: string;
  messagingProfileId: string | null;
  connectionId: string | null;
  simulator: TelnyxSimulator | null;
};

function trimSlash(url: string): string {
  return url.replace(/\/+$/, "");
}

/** Process-wide (server/runtime/process-singleton.ts); forgotten when it stops or fails to start. */
const holder = () => processSingleton("telnyxSimulator", () => ({ simulator: undefined as Promise<TelnyxSimulator> | undefined }));

/**
 * The embedded default when TELNYX_API_KEY is unset: the project's Telnyx simulator in this process on loopback,
 * started on first use. Its webhooks are addressed to our public origin, as Telnyx's would be, and delivered to this
 * server's port.
 */
function embeddedSimulator(publicBaseUrl: string): Promise<TelnyxSimulator> {
  const embedded = holder();
  embedded.simulator ??= startTelnyxSimulator({
    resolvePublicUrl: (url) => (url.startsWith(publicBaseUrl) ? `http://127.0.0.1:${appPort()}${url.slice(publicBaseUrl.length)}` : url),
  }).catch((error: unknown) => {
    embedded.simulator = undefined;
    throw error;
  });
  return embedded.simulator;
}

/** The process's Telnyx account: Telnyx when TELNYX_API_KEY is set, else the embedded simulator. */
export async function getTelnyxAccount(): Promise<TelnyxAccount> {
  const config = getConfig();
  const messagingProfileId = config.TELNYX_MESSAGING_PROFILE_ID ?? null;
  const connectionId = config.TELNYX_CONNECTION_ID ?? null;
  if (config.TELNYX_API_KEY) {
    if (!config.TELNYX_PUBLIC_KEY) throw new Error("TELNYX_API_KEY needs TELNYX_PUBLIC_KEY (docs/carriers.md \"Telnyx\").");
    return {
      kind: "telnyx",
      client: new Telnyx({ apiKey: config.TELNYX_API_KEY, baseURL: config.TELNYX_API_BASE_URL ?? TELNYX_API_BASE_URL, publicKey: config.TELNYX_PUBLIC_KEY }),
      publicKey: config.TELNYX_PUBLIC_KEY,
      publicBaseUrl: trimSlash(config.PUBLIC_BASE_URL ?? appBaseUrl()),
      messagingProfileId,
      connectionId,
      simulator: null,
    };
  }
  const publicBaseUrl = trimSlash(appBaseUrl());
  const simulator = await embeddedSimulator(publicBaseUrl);
  return {
    kind: "simulator",
    client: new Telnyx({ apiKey: simulator.apiKey, baseURL: simulator.baseURL, publicKey: simulator.publicKey, maxRetries: 0 }),
    publicKey: simulator.publicKey,
    publicBaseUrl,
    messagingProfileId,
    connectionId,
    simulator,
  };
}

/** Stops the embedded simulator (shutdown; tests). */
export async function stopEmbeddedTelnyxSimulator(): Promise<void> {
  const embedded = holder();
  const simulator = await embedded.simulator?.catch(() => null);
  embedded.simulator = undefined;
  await simulator?.stop();
}
