import { dataDir, isEmbeddedMode } from "@/server/config/settings";
import { currentSimulatorEndpoint, readSimulatorEndpoint } from "@/server/simulators/chili-piper/endpoint-file";

export const CHILI_PIPER_PRODUCTION_BASE_URL = "https://fire.chilipiper.com/api/fire-edge";

/**
 * `CHILI_PIPER_SIMULATOR_PORT`: a fixed port for the embedded Edge API simulator. Unset (the default), each instance's
 * simulator listens on a free port, recorded in its DATA_DIR, so two instances on one machine never share one.
 */
export function chiliPiperSimulatorPort(): number | null {
  const value = process.env.CHILI_PIPER_SIMULATOR_PORT?.trim();
  if (!value) return null;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65_535) {
    throw new Error(`CHILI_PIPER_SIMULATOR_PORT must be a port number from 1 to 65535, not ${JSON.stringify(value)}.`);
  }
  return port;
}

/**
 * Where the Edge API is: `CHILI_PIPER_BASE_URL` when set (production: the real base URL; tests: a simulator),
 * otherwise in embedded mode this instance's simulator (the one this process started or found, else the one
 * recorded in $DATA_DIR), otherwise Chili Piper's production URL.
 */
export function chiliPiperBaseUrl(): string {
  const configured = process.env.CHILI_PIPER_BASE_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  if (isEmbeddedMode()) {
    const endpoint = currentSimulatorEndpoint() ?? readSimulatorEndpoint(dataDir());
    if (endpoint) return endpoint.url;
    // No simulator runs for this instance: an address that refuses connections (PROVIDER_UNAVAILABLE), never a
    // port another instance's simulator might hold.
    return `http://127.0.0.1:${chiliPiperSimulatorPort() ?? 0}/api/fire-edge`;
  }
  return CHILI_PIPER_PRODUCTION_BASE_URL;
}

/** Per-request timeout (`CHILI_PIPER_TIMEOUT_MS`, default 5 s). */
export function chiliPiperTimeoutMs(): number {
  return Number(process.env.CHILI_PIPER_TIMEOUT_MS ?? 5_000);
}
