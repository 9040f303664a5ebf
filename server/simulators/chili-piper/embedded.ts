import path from "node:path";
import { dataDir } from "@/server/config/settings";
import { chiliPiperSimulatorPort } from "@/server/providers/chili-piper/config";
import { CONTROL_PREFIX, EDGE_PREFIX, startChiliPiperSimulator, type ChiliPiperSimulator } from "./server";

export type EmbeddedSimulatorHandle = { url: string; startedHere: boolean; stop: () => Promise<void> };

const cache = globalThis as unknown as { __chiliPiperSimulator?: Promise<EmbeddedSimulatorHandle | null> };

async function isSimulatorAt(origin: string): Promise<boolean> {
  try {
    const res = await fetch(`${origin}${CONTROL_PREFIX}/health`, { signal: AbortSignal.timeout(1_000) });
    const body = (await res.json()) as { simulator?: string };
    return res.ok && body.simulator === "chili-piper";
  } catch {
    return false;
  }
}

/**
 * Embedded mode: makes sure the Chili Piper simulator answers on `127.0.0.1:CHILI_PIPER_SIMULATOR_PORT` (the address
 * the adapter uses when `CHILI_PIPER_BASE_URL` is unset), starting it in this process unless another process of the
 * app (the server, or a seed run) already serves it. Its state persists in `$DATA_DIR/chili-piper-simulator.json`,
 * so booked meetings survive restarts. Does nothing when `CHILI_PIPER_BASE_URL` points at a real provider.
 */
export function ensureEmbeddedChiliPiperSimulator(): Promise<EmbeddedSimulatorHandle | null> {
  if (process.env.CHILI_PIPER_BASE_URL) return Promise.resolve(null);
  cache.__chiliPiperSimulator ??= start().catch((error) => {
    cache.__chiliPiperSimulator = undefined;
    throw error;
  });
  return cache.__chiliPiperSimulator;
}

async function start(): Promise<EmbeddedSimulatorHandle> {
  const port = chiliPiperSimulatorPort();
  const origin = `http://127.0.0.1:${port}`;
  const shared = { url: `${origin}${EDGE_PREFIX}`, startedHere: false, stop: async () => {} };
  if (await isSimulatorAt(origin)) return shared;
  let simulator: ChiliPiperSimulator;
  try {
    simulator = await startChiliPiperSimulator({ port, stateFile: path.join(dataDir(), "chili-piper-simulator.json"), unref: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE" && (await isSimulatorAt(origin))) return shared;
    throw error;
  }
  return {
    url: simulator.url,
    startedHere: true,
    stop: async () => {
      cache.__chiliPiperSimulator = undefined;
      await simulator.stop();
    },
  };
}
