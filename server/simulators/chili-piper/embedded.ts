import path from "node:path";
import { getConfig } from "@/server/config/env";
import { dataDir } from "@/server/config/settings";
import { chiliPiperSimulatorPort } from "@/server/providers/chili-piper/config";
import {
  readSimulatorEndpoint,
  removeSimulatorEndpoint,
  setCurrentSimulatorEndpoint,
  simulatorEndpointFile,
  writeSimulatorEndpoint,
  type SimulatorEndpoint,
} from "./endpoint-file";
import { CONTROL_PREFIX, CONTROL_TOKEN_HEADER, startChiliPiperSimulator, type ChiliPiperSimulator } from "./server";
import { processSingleton } from "@/server/runtime/process-singleton";

export type EmbeddedSimulatorHandle = SimulatorEndpoint & {
  /** True when this process serves it; false when another process of the same instance does. */
  startedHere: boolean;
  /** The state file (`$DATA_DIR/chili-piper-simulator.json`). */
  stateFile: string;
  stop: () => Promise<void>;
};

/** Process-wide (server/runtime/process-singleton.ts); forgotten when it stops or fails to start. */
const cache = () => processSingleton("chiliPiperSimulator", () => ({ handle: undefined as Promise<EmbeddedSimulatorHandle | null> | undefined }));

/** Whether the simulator of `endpoint` answers and accepts its control token (so it is that very simulator). */
async function answers(endpoint: SimulatorEndpoint): Promise<boolean> {
  try {
    const res = await fetch(`${endpoint.origin}${CONTROL_PREFIX}/health`, {
      headers: { [CONTROL_TOKEN_HEADER]: endpoint.controlToken },
      signal: AbortSignal.timeout(1_000),
    });
    const body = (await res.json()) as { simulator?: string };
    return res.ok && body.simulator === "chili-piper";
  } catch {
    return false;
  }
}

/**
 * Embedded mode: makes sure the Chili Piper simulator of this instance (this DATA_DIR) runs, once per process.
 * Does nothing when `CHILI_PIPER_BASE_URL` points at a real provider (or a test's simulator).
 */
export function ensureEmbeddedChiliPiperSimulator(): Promise<EmbeddedSimulatorHandle | null> {
  if (getConfig().CHILI_PIPER_BASE_URL) return Promise.resolve(null);
  const embedded = cache();
  embedded.handle ??= startEmbeddedChiliPiperSimulator({ dataDir: dataDir(), port: chiliPiperSimulatorPort() })
    .then((handle) => {
      setCurrentSimulatorEndpoint(handle);
      const stop = async () => {
        embedded.handle = undefined;
        setCurrentSimulatorEndpoint(null);
        await handle.stop();
      };
      return { ...handle, stop };
    })
    .catch((error) => {
      embedded.handle = undefined;
      throw error;
    });
  return embedded.handle;
}

/**
 * The simulator of the instance whose data lives in `dataDir`: the one recorded in
 * `$DATA_DIR/chili-piper-simulator.endpoint.json` when it still answers with its control token (started by another
 * process of this instance: the server, the seed CLI), else a new one started here — on `port`, or a free port when
 * none is configured — and recorded there. Its state persists in `$DATA_DIR/chili-piper-simulator.json`, so booked
 * meetings survive restarts. Another instance's simulator is never reused: it has its own DATA_DIR, file and token.
 */
export async function startEmbeddedChiliPiperSimulator(options: { dataDir: string; port?: number | null }): Promise<EmbeddedSimulatorHandle> {
  const stateFile = path.join(options.dataDir, "chili-piper-simulator.json");
  const recorded = readSimulatorEndpoint(options.dataDir);
  if (recorded && (await answers(recorded))) return { ...recorded, startedHere: false, stateFile, stop: async () => {} };

  let simulator: ChiliPiperSimulator;
  try {
    simulator = await startChiliPiperSimulator({ port: options.port ?? 0, stateFile, unref: true });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(
        `CHILI_PIPER_SIMULATOR_PORT ${options.port} is in use by another process (another instance's simulator?). ` +
          `Unset it to let each instance pick a free port.`,
      );
    }
    throw error;
  }
  const endpoint: SimulatorEndpoint = { url: simulator.url, origin: simulator.origin, controlToken: simulator.controlToken, pid: process.pid };
  writeSimulatorEndpoint(options.dataDir, endpoint);
  return {
    ...endpoint,
    startedHere: true,
    stateFile,
    stop: async () => {
      removeSimulatorEndpoint(options.dataDir, endpoint);
      await simulator.stop();
    },
  };
}

/** The log line of embedded mode: which simulator this instance uses, where its state and endpoint are. */
export function describeEmbeddedSimulator(handle: EmbeddedSimulatorHandle, directory: string = dataDir()): string {
  const how = handle.startedHere ? "listening on" : `using (served by pid ${handle.pid})`;
  return `${how} ${handle.url}; state ${handle.stateFile}; endpoint and control token in ${simulatorEndpointFile(directory)}`;
}
