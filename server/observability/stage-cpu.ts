import { AsyncLocalStorage, createHook, type AsyncHook } from "node:async_hooks";
import { processSingleton } from "@/server/runtime/process-singleton";

/**
 * Where the app's CPU goes, by pipeline stage (issue 38's campaign bench): off unless `STAGE_CPU_ACCOUNTING=1`.
 *
 * The work of a stage runs inside `inCpuStage(stage, fn)` (an AsyncLocalStorage context that follows its callbacks
 * and promises); an async hook reads the process's CPU time (`process.cpuUsage()`, user + system) before and after
 * every callback the event loop runs and adds the difference to the stage of its context — CPU, not wall time, so a
 * loaded machine's waits are not counted (helper threads' CPU meanwhile, such as GC's, is charged to the callback).
 * Time outside any callback (module loading, idle) is not counted. The hook costs CPU itself (promise hooks on every reaction): use it
 * for the split, and the uninstrumented process CPU for the total. Served as `app_stage_cpu_seconds_total{stage}` on
 * `/metrics`. Written here: no library attributes CPU to application-defined stages (a V8 CPU profile of the built,
 * minified server bundles names chunks, not stages).
 */

export const CPU_STAGES = ["enrollment", "dispatch", "voice-events", "finalize", "analysis", "webhook", "runner", "http", "other"] as const;
export type CpuStage = (typeof CPU_STAGES)[number];

type Accounting = { storage: AsyncLocalStorage<CpuStage>; enabled: boolean; micros: Record<CpuStage, number>; hook?: AsyncHook };

// One per process (server/runtime/process-singleton.ts): Next.js loads this module once per bundle, and the runner (a
// Next bundle) and the HTTP server (not one) must count into the same totals.
function accounting(): Accounting {
  return processSingleton("stageCpu", () => ({
    storage: new AsyncLocalStorage<CpuStage>(),
    enabled: false,
    micros: Object.fromEntries(CPU_STAGES.map((stage) => [stage, 0])) as Record<CpuStage, number>,
  }));
}

/** Runs `fn` (and everything it starts) as `stage`'s work; a plain call while accounting is off. */
export function inCpuStage<T>(stage: CpuStage, fn: () => T): T {
  const state = accounting();
  return state.enabled ? state.storage.run(stage, fn) : fn();
}

/** Starts timing callbacks by stage (idempotent). */
export function enableStageCpuAccounting(): void {
  const state = accounting();
  if (state.enabled) return;
  state.enabled = true;
  // Callbacks can nest (an emitter's listener running a resource's callback synchronously): a stack of open ones,
  // each charged its own time without the nested ones'.
  const cpuMicros = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  const open: Array<{ stage: CpuStage; startedAt: number; nested: number }> = [];
  state.hook = createHook({
    before() {
      open.push({ stage: state.storage.getStore() ?? "other", startedAt: cpuMicros(), nested: 0 });
    },
    after() {
      const entry = open.pop();
      if (!entry) return;
      const spent = cpuMicros() - entry.startedAt;
      state.micros[entry.stage] += spent - entry.nested;
      const parent = open.at(-1);
      if (parent) parent.nested += spent;
    },
  }).enable();
}

/** Stops timing (tests: the hook would slow whatever else runs in the process) and zeroes the totals. */
export function disableStageCpuAccounting(): void {
  const state = accounting();
  state.hook?.disable();
  state.hook = undefined;
  state.enabled = false;
  for (const stage of CPU_STAGES) state.micros[stage] = 0;
}

/** CPU seconds per stage so far (zeros while accounting is off). */
export function stageCpuSeconds(): Record<CpuStage, number> {
  const { micros } = accounting();
  return Object.fromEntries(CPU_STAGES.map((stage) => [stage, micros[stage] / 1e6])) as Record<CpuStage, number>;
}

/** The stage of the runner's work for a function (its ID, `<app id>-<function id>`). */
export function cpuStageOfFunction(functionId: string): CpuStage {
  const is = (...ids: string[]) => ids.some((id) => functionId.endsWith(`-${id}`));
  if (is("dispatch-calls", "dispatch-due-calls")) return "dispatch";
  if (is("analyze-call")) return "analysis";
  if (is("deliver-webhook", "enqueue-webhook-deliveries")) return "webhook";
  if (is("materialize-bulk-batch", "resume-bulk-batches")) return "enrollment";
  return "runner";
}

/** The stage of an HTTP request, by its path. */
export function cpuStageOfRequest(url: string): CpuStage {
  if (url.startsWith("/api/voice/events")) return "voice-events";
  if (/^\/api\/v1\/agents\/[^/]+\/schedule\/sequences?(\?|$)/.test(url)) return "enrollment";
  return "http";
}
