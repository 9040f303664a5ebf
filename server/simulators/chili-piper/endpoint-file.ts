import { chmodSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { processSingleton } from "@/server/runtime/process-singleton";

/**
 * Where an embedded instance's Chili Piper simulator is: `$DATA_DIR/chili-piper-simulator.endpoint.json`, mode 0600,
 * written by the process that started it. Other processes of the same instance (the seed CLI, a second server on the
 * same DATA_DIR) find it there, with the control token they need for `/__simulator/*`; instances on other DATA_DIRs
 * never see it, so each has its own simulator, port and state.
 */
export const SIMULATOR_ENDPOINT_FILE = "chili-piper-simulator.endpoint.json";

export type SimulatorEndpoint = {
  /** Base URL of the Edge API (`http://127.0.0.1:PORT/api/fire-edge`). */
  url: string;
  /** `http://127.0.0.1:PORT`: `/__simulator/*` lives here. */
  origin: string;
  /** Required in the `x-simulator-token` header on `/__simulator/*`. */
  controlToken: string;
  /** The process serving it. */
  pid: number;
};

/** Process-wide (server/runtime/process-singleton.ts): every module copy asks the same simulator. */
const holder = () => processSingleton("chiliPiperSimulatorEndpoint", () => ({ endpoint: undefined as SimulatorEndpoint | undefined }));

export function simulatorEndpointFile(dataDir: string): string {
  return path.join(dataDir, SIMULATOR_ENDPOINT_FILE);
}

/** The endpoint recorded in `dataDir`, or null (none, or unreadable). It may be stale: check it answers. */
export function readSimulatorEndpoint(dataDir: string): SimulatorEndpoint | null {
  try {
    const parsed = JSON.parse(readFileSync(simulatorEndpointFile(dataDir), "utf8")) as Partial<SimulatorEndpoint>;
    if (typeof parsed.url !== "string" || typeof parsed.origin !== "string" || typeof parsed.controlToken !== "string") return null;
    return { url: parsed.url, origin: parsed.origin, controlToken: parsed.controlToken, pid: Number(parsed.pid) };
  } catch {
    return null;
  }
}

/** Records the endpoint in `dataDir` (atomically, mode 0600: it holds the control token). */
export function writeSimulatorEndpoint(dataDir: string, endpoint: SimulatorEndpoint): void {
  const file = simulatorEndpointFile(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(endpoint), { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
}

/** Removes the record if it still describes `endpoint` (another process may have replaced it since). */
export function removeSimulatorEndpoint(dataDir: string, endpoint: SimulatorEndpoint): void {
  if (readSimulatorEndpoint(dataDir)?.controlToken === endpoint.controlToken) rmSync(simulatorEndpointFile(dataDir), { force: true });
}

/** The simulator this process uses (set once `ensureEmbeddedChiliPiperSimulator` has found or started it). */
export function currentSimulatorEndpoint(): SimulatorEndpoint | null {
  return holder().endpoint ?? null;
}

export function setCurrentSimulatorEndpoint(endpoint: SimulatorEndpoint | null): void {
  holder().endpoint = endpoint ?? undefined;
}
