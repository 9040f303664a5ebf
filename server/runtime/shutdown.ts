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
 * Then the process exits: 0 when everything stopped in time, 1 otherwise. A second signal exits at once.
 */

/** Time kept for closing pools and the embedded database after the drain. */
const CLOSE_RESERVE_MS = 2_000;

export function installShutdownHandlers(options: { closeHttp: (budgetMs: number) => Promise<unknown> }): void {
  onShutdown("http-server", "drain", (budgetMs) => options.closeHttp(budgetMs).then(() => undefined));
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      getLogger("shutdown").warn({ signal }, "second signal: exiting now");
      void flushLogs().finally(() => process.exit(1));
      return;
    }
    stopping = true;
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
