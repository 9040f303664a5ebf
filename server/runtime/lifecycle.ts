import { getLogger } from "@/server/observability/logger";
import { processSingleton } from "./process-singleton";

/**
 * The process's lifecycle as the readiness check and the shutdown see it: whether it is shutting down, whether the
 * Inngest serve endpoint is registered (Inngest Cloud / self-hosted mode), and what to stop, in which order, on
 * SIGTERM. Parts register their own stop (`onShutdown`) where they start — the embedded runner and simulators in
 * server/runtime/start-embedded-services.ts, the database pool in db/index.ts — and scripts/start.ts runs them
 * (server/runtime/shutdown.ts). Process-wide (server/runtime/process-singleton.ts): Next.js loads this module once per
 * bundle.
 */

/**
 * In this order: `calls` (the voice engine ends the calls in the air on this instance and reports them, while the
 * HTTP server still takes their events), `drain` (the HTTP server's requests in flight and the runner's steps, side by
 * side), `services` (simulators), `connections` (database pools), `database` (the embedded PostgreSQL this process
 * started).
 */
export type ShutdownStage = "calls" | "drain" | "services" | "connections" | "database";
const STAGE_ORDER: ShutdownStage[] = ["calls", "drain", "services", "connections", "database"];

/**
 * A part's stop, within `budgetMs`. It resolves `"cut-short"` when it had to cut work off to end in time (the HTTP
 * server closing requests still in flight): the shutdown then counts it as timed out, like a stop that overran.
 */
type StopPart = (budgetMs: number) => Promise<void | "cut-short">;
type ShutdownHook = { name: string; stage: ShutdownStage; stop: StopPart };
type LifecycleState = { shuttingDown: boolean; hooks: ShutdownHook[]; inngestRegistered: boolean };

function state(): LifecycleState {
  return processSingleton("lifecycle", (): LifecycleState => ({ shuttingDown: false, hooks: [], inngestRegistered: false }));
}

/** Registers what to stop on shutdown (once per name: a second registration replaces the first). */
export function onShutdown(name: string, stage: ShutdownStage, stop: StopPart): void {
  const current = state();
  current.hooks = [...current.hooks.filter((hook) => hook.name !== name), { name, stage, stop }];
}

export function isShuttingDown(): boolean {
  return state().shuttingDown;
}

/** The first step of a shutdown: readiness answers 503 from now on. */
export function markShuttingDown(): void {
  state().shuttingDown = true;
}

export function setInngestRegistered(registered: boolean): void {
  state().inngestRegistered = registered;
}

export function isInngestRegistered(): boolean {
  return state().inngestRegistered;
}

/**
 * Runs the registered stops stage by stage (all of a stage at once), each bounded by what is left until `deadline`
 * (epoch ms). A stop that fails, overruns or is cut short is logged and the next stage goes on.
 */
export async function runShutdownHooks(deadline: number, options: { reserveMs?: Partial<Record<ShutdownStage, number>> } = {}): Promise<{ timedOut: string[]; failed: string[] }> {
  const log = getLogger("shutdown");
  const timedOut: string[] = [];
  const failed: string[] = [];
  for (const stage of STAGE_ORDER) {
    const hooks = state().hooks.filter((hook) => hook.stage === stage);
    // A stage may leave time for the ones after it (closing pools after the drain).
    const stageDeadline = deadline - (options.reserveMs?.[stage] ?? 0);
    await Promise.all(
      hooks.map(async (hook) => {
        const budgetMs = Math.max(0, stageDeadline - Date.now());
        let timer: NodeJS.Timeout | undefined;
        const outcome = await Promise.race([
          hook.stop(budgetMs).then(
            (result) => (result === "cut-short" ? ("timeout" as const) : ("done" as const)),
            (error: unknown) => {
              log.error({ err: error, part: hook.name }, "stopping failed");
              return "failed" as const;
            },
          ),
          new Promise<"timeout">((resolve) => {
            timer = setTimeout(() => resolve("timeout"), budgetMs);
          }),
        ]);
        clearTimeout(timer);
        if (outcome === "timeout") {
          timedOut.push(hook.name);
          log.warn({ part: hook.name, budgetMs }, "stopping did not finish in time: cut short");
        }
        else if (outcome === "failed") failed.push(hook.name);
        else log.info({ part: hook.name }, "stopped");
      }),
    );
  }
  return { timedOut, failed };
}

/** Tests: a fresh lifecycle. */
export function resetLifecycleForTests(): void {
  const current = state();
  current.shuttingDown = false;
  current.hooks = [];
  current.inngestRegistered = false;
}
