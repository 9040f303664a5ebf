import { isEmbeddedMode } from "@/server/config/settings";

export const CHILI_PIPER_PRODUCTION_BASE_URL = "https://fire.chilipiper.com/api/fire-edge";

/** Port of the local Edge API simulator in embedded mode (`CHILI_PIPER_SIMULATOR_PORT`, default 4870). */
export function chiliPiperSimulatorPort(): number {
  return Number(process.env.CHILI_PIPER_SIMULATOR_PORT ?? 4870);
}

/**
 * Where the Edge API is: `CHILI_PIPER_BASE_URL` when set (production: the real base URL; tests: a simulator),
 * otherwise the embedded simulator on loopback in embedded mode, otherwise Chili Piper's production URL.
 */
export function chiliPiperBaseUrl(): string {
  const configured = process.env.CHILI_PIPER_BASE_URL?.trim();
  if (configured) return configured.replace(/\/+$/, "");
  if (isEmbeddedMode()) return `http://127.0.0.1:${chiliPiperSimulatorPort()}/api/fire-edge`;
  return CHILI_PIPER_PRODUCTION_BASE_URL;
}

/** Per-request timeout (`CHILI_PIPER_TIMEOUT_MS`, default 5 s). */
export function chiliPiperTimeoutMs(): number {
  return Number(process.env.CHILI_PIPER_TIMEOUT_MS ?? 5_000);
}
