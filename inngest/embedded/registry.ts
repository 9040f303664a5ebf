import { Cron } from "croner";
import { parseDuration } from "./durations";
import { ExpressionError, parseCondition, parseValue, rootsOf, type Condition, type Operand } from "./expressions";

/** A function configuration as the SDK reports it on sync (`functions[]` of the in-band register body). */
export type FunctionConfig = {
  id: string;
  name?: string;
  triggers: Array<{ event: string; expression?: string } | { cron: string; jitter?: string }>;
  steps: Record<string, { id: string; name: string; runtime: { type: string; url: string }; retries?: { attempts?: number } }>;
  idempotency?: string;
  concurrency?: number | ConcurrencyOption | ConcurrencyOption[];
  cancel?: Array<{ event: string; if?: string; timeout?: string }>;
  batchEvents?: { maxSize: number; timeout: string; key?: string; if?: string };
  [option: string]: unknown;
};

type ConcurrencyOption = { limit: number; key?: string; scope?: "fn" | "env" | "account" };

export type CompiledFunction = {
  id: string;
  name: string;
  config: FunctionConfig;
  eventTriggers: Array<{ event: string; conditions: Condition[] | null }>;
  cronTriggers: Array<{ cron: string; schedule: Cron }>;
  cancel: Array<{ event: string; conditions: Condition[]; timeoutMs: number | null }>;
  concurrency: Array<{ limit: number; key: Operand[] | null; scope: "fn" | "env" | "account" }>;
  idempotency: Operand[] | null;
  /** batchEvents: runs start with up to `maxSize` events, `timeoutMs` after a batch's first event at the latest. */
  batch: { maxSize: number; timeoutMs: number; key: Operand[] | null; conditions: Condition[] | null } | null;
  /** Attempts per step (and for function-level errors): the function's `retries` + 1 (default 3 retries). */
  maxAttempts: number;
};

export type FunctionRegistry = Map<string, CompiledFunction>;

export const DEFAULT_RETRIES = 3;

/** Options the SDK can send that the embedded runner does not implement: refused at registration, never ignored. */
const UNSUPPORTED_OPTIONS = ["rateLimit", "throttle", "singleton", "debounce", "timeouts", "priority"] as const;
const SUPPORTED_OPTIONS = new Set(["id", "name", "triggers", "steps", "idempotency", "concurrency", "cancel", "batchEvents"]);

export class UnsupportedConfigurationError extends Error {
  constructor(readonly problems: string[]) {
    super(
      `The embedded Inngest runner cannot run these functions:\n${problems.map((p) => `  - ${p}`).join("\n")}\n` +
        "Remove the option, or run the app against an Inngest server (INNGEST_DEV=1 or INNGEST_BASE_URL; see docs/background-jobs.md).",
    );
    this.name = "UnsupportedConfigurationError";
  }
}

/** `TZ=Europe/Paris 0 9 * * *` → pattern + zone (Inngest's cron syntax); UTC otherwise. */
export function parseCron(cron: string): Cron {
  const match = /^\s*(?:CRON_)?TZ=(\S+)\s+(.+)$/.exec(cron);
  const zone = match?.[1] ?? "UTC";
  const pattern = (match?.[2] ?? cron).trim();
  return new Cron(pattern, { timezone: zone, paused: true });
}

function compileOne(config: FunctionConfig, problems: string[]): CompiledFunction | null {
  const where = (option: string) => `function "${config.id}", option "${option}"`;
  const before = problems.length;

  for (const option of UNSUPPORTED_OPTIONS) {
    if (config[option] !== undefined && config[option] !== null) {
      problems.push(`${where(option)}: not supported by the embedded runner`);
    }
  }
  for (const option of Object.keys(config)) {
    if (!SUPPORTED_OPTIONS.has(option) && !(UNSUPPORTED_OPTIONS as readonly string[]).includes(option) && config[option] !== undefined) {
      problems.push(`${where(option)}: unknown option, not supported by the embedded runner`);
    }
  }

  const condition = (option: string, expression: string, allowAsync: boolean): Condition[] | null => {
    try {
      const conditions = parseCondition(expression);
      if (!allowAsync && rootsOf(conditions).has("async")) {
        problems.push(`${where(option)}: ${JSON.stringify(expression)} refers to async, which only exists in cancelOn and waitForEvent`);
        return null;
      }
      return conditions;
    } catch (error) {
      problems.push(`${where(option)}: ${error instanceof ExpressionError ? error.message : String(error)}`);
      return null;
    }
  };
  const value = (option: string, expression: string): Operand[] | null => {
    try {
      const terms = parseValue(expression);
      if (terms.some((term) => term.kind === "path" && term.root === "async")) {
        problems.push(`${where(option)}: ${JSON.stringify(expression)} may only refer to event`);
        return null;
      }
      return terms;
    } catch (error) {
      problems.push(`${where(option)}: ${error instanceof ExpressionError ? error.message : String(error)}`);
      return null;
    }
  };

  const eventTriggers: CompiledFunction["eventTriggers"] = [];
  const cronTriggers: CompiledFunction["cronTriggers"] = [];
  for (const trigger of config.triggers ?? []) {
    if ("cron" in trigger) {
      if (trigger.jitter) problems.push(`${where("triggers.cron.jitter")}: cron jitter is not supported by the embedded runner`);
      try {
        cronTriggers.push({ cron: trigger.cron, schedule: parseCron(trigger.cron) });
      } catch (error) {
        problems.push(`${where("triggers.cron")}: invalid cron ${JSON.stringify(trigger.cron)} (${(error as Error).message})`);
      }
    } else {
      if (trigger.event.includes("*")) problems.push(`${where("triggers.event")}: wildcard event triggers are not supported by the embedded runner`);
      const conditions = trigger.expression ? condition("triggers.if", trigger.expression, false) : null;
      eventTriggers.push({ event: trigger.event, conditions });
    }
  }

  const cancel: CompiledFunction["cancel"] = [];
  for (const entry of config.cancel ?? []) {
    const conditions = entry.if ? condition("cancelOn.if", entry.if, true) : [];
    let timeoutMs: number | null = null;
    if (entry.timeout) {
      timeoutMs = parseDuration(entry.timeout);
      if (timeoutMs === null) problems.push(`${where("cancelOn.timeout")}: only durations (e.g. "1h") are supported, got ${JSON.stringify(entry.timeout)}`);
    }
    cancel.push({ event: entry.event, conditions: conditions ?? [], timeoutMs });
  }

  const concurrency: CompiledFunction["concurrency"] = [];
  const options =
    config.concurrency === undefined ? [] : typeof config.concurrency === "number" ? [{ limit: config.concurrency }] : [config.concurrency].flat();
  for (const option of options) {
    if (!Number.isInteger(option.limit) || option.limit < 0) {
      problems.push(`${where("concurrency.limit")}: must be a non-negative integer`);
      continue;
    }
    if (option.limit === 0) continue; // Inngest: 0 means "no limit".
    const key = option.key ? value("concurrency.key", option.key) : null;
    concurrency.push({ limit: option.limit, key, scope: option.scope ?? "fn" });
  }

  const idempotency = config.idempotency ? value("idempotency", config.idempotency) : null;
  const batch = config.batchEvents ? compileBatch(config, problems, { where, value, condition }) : null;
  const retries = Object.values(config.steps ?? {})[0]?.retries?.attempts ?? DEFAULT_RETRIES;

  if (problems.length > before) return null;
  return {
    id: config.id,
    name: config.name ?? config.id,
    config,
    eventTriggers,
    cronTriggers,
    cancel,
    concurrency,
    idempotency,
    batch,
    maxAttempts: Math.max(1, retries + 1),
  };
}

type Compilers = {
  where: (option: string) => string;
  value: (option: string, expression: string) => Operand[] | null;
  condition: (option: string, expression: string, allowAsync: boolean) => Condition[] | null;
};

/** batchEvents, with the options Inngest does not combine with it (idempotency and cancelOn apply to one event). */
function compileBatch(config: FunctionConfig, problems: string[], { where, value, condition }: Compilers): CompiledFunction["batch"] {
  const options = config.batchEvents!;
  if (!Number.isInteger(options.maxSize) || options.maxSize < 1) problems.push(`${where("batchEvents.maxSize")}: must be a positive integer`);
  const timeoutMs = typeof options.timeout === "string" ? parseDuration(options.timeout) : null;
  if (timeoutMs === null || timeoutMs <= 0) problems.push(`${where("batchEvents.timeout")}: must be a duration such as "5s", got ${JSON.stringify(options.timeout)}`);
  if (config.idempotency) problems.push(`${where("batchEvents")}: cannot be combined with idempotency (as in Inngest)`);
  if (config.cancel?.length) problems.push(`${where("batchEvents")}: cannot be combined with cancelOn (as in Inngest)`);
  const key = options.key ? value("batchEvents.key", options.key) : null;
  const conditions = options.if ? condition("batchEvents.if", options.if, false) : null;
  return { maxSize: options.maxSize, timeoutMs: timeoutMs ?? 0, key, conditions };
}

/** Validates and compiles synced configurations; throws UnsupportedConfigurationError naming each function + option. */
export function compileFunctions(configs: FunctionConfig[]): FunctionRegistry {
  const problems: string[] = [];
  const registry: FunctionRegistry = new Map();
  for (const config of configs) {
    const compiled = compileOne(config, problems);
    if (compiled) registry.set(compiled.id, compiled);
  }
  if (problems.length) throw new UnsupportedConfigurationError(problems);
  return registry;
}
