import { getConfig } from "@/server/config/env";
import { flushLogs, getLogger } from "@/server/observability/logger";
import { markShuttingDown, onShutdown, runShutdownHooks } from "./lifecycle";

/**
 * Graceful shutdown on SIGTERM (and SIGINT), bounded by `SHUTDOWN_TIMEOUT_SECONDS`:
 * 1. readiness answers 503 (`/readyz` names `shutdown`), so a load balancer stops sending new requests;
 * 2. drain: the HTTP server stops accepting and lets requests in flight finish, while the embedded runner lets its
 *    running steps finish (what is not done when the time is up stays in the database: its lease expires, or is
 *    released by runners that support it, and another instance — or this one after a restart — takes it over);
 * 3. simulators stop; 4. the database pools close; 5. the embedded PostgreSQL this process started stops.
 * Then the process exits: 0 when everything stopped in time, 1 otherwise. A second signal exits at once — except the
 * same signal within RELAYED_SIGNAL_MS of the first: a signal sent to the whole process group (systemd's default
 * KillMode, a terminal's Ctrl-C) reaches the app directly and again through `npm start`, which relays SIGTERM and
 * SIGINT to its child; that copy is the same request to stop, not an impatient second one.
 */

/** How long after the first signal the same signal counts as a relayed copy of it (npm relays within milliseconds). */
const RELAYED_SIGNAL_MS = 1_000;

/** Time kept for closing pools and the embedded database after the drain. */
const CLOSE_RESERVE_MS = 2_000;

/** `closeHttp` resolves false when requests still in flight had to be cut when the time was up (closeGracefully). */
export function installShutdownHandlers(options: { closeHttp: (budgetMs: number) => Promise<boolean> }): void {
  onShutdown("http-server", "drain", async (budgetMs) => ((await options.closeHttp(budgetMs)) ? undefined : "cut-short"));
  let first: { signal: NodeJS.Signals; at: number } | null = null;
  const onSignal = (signal: NodeJS.Signals) => {
    if (first) {
      if (signal === first.signal && Date.now() - first.at < RELAYED_SIGNAL_MS) {
        getLogger("shutdown").debug({ signal }, "the same signal again (relayed by npm or sent to the process group): already shutting down");
        return;
      }
      getLogger("shutdown").warn({ signal }, "second signal: exiting now");
      void flushLogs().finally(() => process.exit(1));
      return;
    }
    first = { signal, at: Date.now() };
    void shutdown(signal).then((code) => process.exit(code));
  };
  process.on("SIGTERM", onSignal);
  process.on("SIGINT", onSignal);
}

export async function shutdown(signal: string): Promise<number> {
  const log = getLogger("shutdown");
  const timeoutMs = getConfig().SHUTDOWN_TIMEOUT_SECONDS * 1000;
  const started = Date.now();
  const deadline = started + timeoutMs;
  // Whatever happens below, the process does not outlive the bound by more than a second.
  setTimeout(() => {
    log.error({ timeoutSeconds: timeoutMs / 1000 }, "shutdown did not finish in time: exiting");
    void flushLogs().finally(() => process.exit(1));
  }, timeoutMs + 1000).unref();
  markShuttingDown();
  log.info({ signal, timeoutSeconds: timeoutMs / 1000 }, "shutting down: readiness is 503, draining requests and background steps");
  const reserve = Math.min(CLOSE_RESERVE_MS, timeoutMs / 4);
  // Ending the calls in the air may take at most half the time: the drain after it needs the rest.
  const { timedOut, failed } = await runShutdownHooks(deadline, { reserveMs: { calls: timeoutMs / 2, drain: reserve } });
  const clean = timedOut.length === 0 && failed.length === 0;
  log[clean ? "info" : "warn"]({ durationMs: Date.now() - started, timedOut, failed }, clean ? "shut down" : "shut down with parts cut short");
  await flushLogs();
  return clean ? 0 : 1;
}
