import { getConfig } from "@/server/config/env";
import { dataDir, isDemoInstance } from "@/server/config/settings";
import { currentSimulatorEndpoint, readSimulatorEndpoint } from "@/server/simulators/chili-piper/endpoint-file";

export const CHILI_PIPER_PRODUCTION_BASE_URL = "https://fire.chilipiper.com/api/fire-edge";

/**
 * `CHILI_PIPER_SIMULATOR_PORT`: a fixed port for the embedded Edge API simulator. Unset (the default), each instance's
 * simulator listens on a free port, recorded in its DATA_DIR, so two instances on one machine never share one.
 */
export function chiliPiperSimulatorPort(): number | null {
  return getConfig().CHILI_PIPER_SIMULATOR_PORT ?? null;
}

/**
 * Where the Edge API is: `CHILI_PIPER_BASE_URL` when set (production: the real base URL; tests: a simulator);
 * otherwise the simulator this process started or found (the demo seed starts one wherever it runs, so seeding works
 * on any database); otherwise on a demo instance (embedded mode, or `SEED_DEMO=1`) the simulator recorded in
 * $DATA_DIR; otherwise Chili Piper's production URL.
 */
export function chiliPiperBaseUrl(): string {
  const configured = getConfig().CHILI_PIPER_BASE_URL;
  if (configured) return configured.replace(/\/+$/, "");
  const running = currentSimulatorEndpoint();
  if (running) return running.url;
  if (isDemoInstance()) {
    const endpoint = readSimulatorEndpoint(dataDir());
    if (endpoint) return endpoint.url;
    // No simulator runs for this instance: an address that refuses connections (PROVIDER_UNAVAILABLE), never a
    // port another instance's simulator might hold.
    return `http://127.0.0.1:${chiliPiperSimulatorPort() ?? 0}/api/fire-edge`;
  }
  return CHILI_PIPER_PRODUCTION_BASE_URL;
}

/** Per-request timeout (`CHILI_PIPER_TIMEOUT_MS`, default 5 s). */
export function chiliPiperTimeoutMs(): number {
  return getConfig().CHILI_PIPER_TIMEOUT_MS;
}
