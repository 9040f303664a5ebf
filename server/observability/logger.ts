import { AsyncLocalStorage } from "node:async_hooks";
import pino, { type DestinationStream, type Logger } from "pino";
import { getConfig } from "@/server/config/env";
import { processSingleton } from "@/server/runtime/process-singleton";
import { scrubText, scrubValue } from "./redact";

/**
 * The app's structured logs (pino): one JSON object per line on standard output (or `LOG_FILE`), human-readable with
 * `LOG_FORMAT=pretty` (`npm run dev`). Every line passes one walk over its fields (server/observability/redact.ts):
 * secret fields censored, phone fields masked to their last 4 digits, and every string scrubbed (API keys cut to
 * their prefix, webhook secrets removed, E.164 numbers masked), so a careless message cannot leak them. Lines written
 * while a request is handled carry its `reqId` (and `orgId` once known), from the request context
 * (`runWithRequestContext`).
 *
 * The root logger is process-wide (server/runtime/process-singleton.ts): Next.js loads this module once per bundle,
 * and all copies must share one destination.
 */

/** The request being handled: its ID, and what the handler learns (route template, verified organization and key prefix). */
export type RequestContext = { reqId: string; route?: string; orgId?: string; keyPrefix?: string };

/** What a command-line tool changes: logs on stderr (its stdout is its output) and a quieter default level. */
export type LogOverrides = { stderr?: boolean; defaultLevel?: pino.LevelWithSilent };

type Holder = {
  root?: Logger;
  /** The buffered standard-output stream of the current root logger (flushed on exit and by flushLogs). */
  stream?: ReturnType<typeof pino.destination>;
  exitHook: boolean;
  children?: Map<string, Logger>;
  requestContext: AsyncLocalStorage<RequestContext>;
  overrides?: LogOverrides;
};

function logging(): Holder {
  return processSingleton("logger", (): Holder => ({ exitHook: false, requestContext: new AsyncLocalStorage<RequestContext>() }));
}

function requestContextStorage(): AsyncLocalStorage<RequestContext> {
  return logging().requestContext;
}

/** Runs `fn(...args)` with `context` as the current request (its log lines carry reqId/orgId). */
export function runWithRequestContext<T, A extends unknown[]>(context: RequestContext, fn: (...args: A) => T, ...args: A): T {
  return requestContextStorage().run(context, fn, ...args);
}

/** The request being handled, if any (mutable: the API handler adds orgId and keyPrefix once the key is verified). */
export function currentRequestContext(): RequestContext | undefined {
  return requestContextStorage().getStore();
}

function errorSerializer(error: unknown) {
  if (!(error instanceof Error)) return scrubValue(error);
  return scrubValue({ ...pino.stdSerializers.err(error) });
}

/**
 * Standard output is written in blocks of at least this many bytes (about 15 request lines) instead of one write per
 * line: a write per request was the log line's main cost on the API's hot path. Still synchronous (no write in
 * flight to lose or reorder), and flushed every STDOUT_FLUSH_MS, on `flushLogs()` (shutdown, fatal start errors) and
 * on process exit — also an uncaught exception's. What a hard kill (SIGKILL, the kernel's OOM killer, a native crash)
 * loses: the lines of the last STDOUT_FLUSH_MS, at most STDOUT_BUFFER_BYTES plus one line.
 */
export const STDOUT_BUFFER_BYTES = 4096;
export const STDOUT_FLUSH_MS = 500;

function destination(format: "json" | "pretty", file: string | undefined, stderr: boolean): DestinationStream {
  // A log file is written line by line: the test suite reads it back as soon as the code that logged returned.
  if (file) return pino.destination({ dest: file, append: true, mkdir: true, sync: true });
  if (format === "pretty") {
    try {
      return pino.transport({ target: "pino-pretty", options: { colorize: true, translateTime: "SYS:HH:MM:ss.l", ignore: "pid,hostname", destination: stderr ? 2 : 1 } });
    } catch {
      // pino-pretty is a dev dependency: a production install logs JSON.
    }
  }
  // Command-line tools log on stderr, next to their output: unbuffered.
  if (stderr) return pino.destination({ dest: 2, sync: true });
  const stream = pino.destination({ dest: 1, sync: true, minLength: STDOUT_BUFFER_BYTES, periodicFlush: STDOUT_FLUSH_MS });
  const holder = logging();
  holder.stream = stream;
  if (!holder.exitHook) {
    holder.exitHook = true;
    process.on("exit", flushLogsSync);
  }
  return stream;
}

/** Writes the buffered standard-output lines now (process exit; replacing the logger). */
function flushLogsSync(): void {
  try {
    logging().stream?.flushSync();
  } catch {
    // Not open yet or already closed: nothing buffered can be written.
  }
}

function createRootLogger(): Logger {
  const config = getConfig();
  const overrides = logging().overrides ?? {};
  const format = config.LOG_FORMAT ?? "json";
  const options: pino.LoggerOptions = {
    level: config.raw.LOG_LEVEL ? config.LOG_LEVEL : (overrides.defaultLevel ?? config.LOG_LEVEL),
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: errorSerializer, error: errorSerializer },
    formatters: {
      level: (label) => ({ level: label }),
      log: (object) => scrubValue(object) as Record<string, unknown>,
    },
    mixin: () => {
      const context = currentRequestContext();
      return context ? { reqId: context.reqId, ...(context.orgId ? { orgId: context.orgId } : {}) } : {};
    },
    hooks: {
      logMethod(args, method) {
        const scrubbed = args.map((arg) => (typeof arg === "string" ? scrubText(arg) : arg)) as Parameters<typeof method>;
        method.apply(this, scrubbed);
      },
    },
  };
  return pino(options, destination(format, config.LOG_FILE, overrides.stderr ?? false));
}

/** Command-line tools: call before anything logs. */
export function configureLogging(overrides: LogOverrides): void {
  logging().overrides = overrides;
  resetLoggerForTests();
}

/** The root logger, or a child for one part of the app (`component` on every line). */
export function getLogger(component?: string): Logger {
  const holder = logging();
  holder.root ??= createRootLogger();
  if (!component) return holder.root;
  holder.children ??= new Map();
  let child = holder.children.get(component);
  if (!child) {
    child = holder.root.child({ component });
    holder.children.set(component, child);
  }
  return child;
}

/** Tests and the start script (after reloading the configuration): the next getLogger() builds the logger again. */
export function resetLoggerForTests(): void {
  flushLogsSync();
  const holder = logging();
  holder.stream = undefined;
  holder.root = undefined;
  holder.children = undefined;
}

export type ConsoleLike = { info: (...args: unknown[]) => void; warn: (...args: unknown[]) => void; error: (...args: unknown[]) => void; debug: (...args: unknown[]) => void };

/**
 * A console-style facade (`log.warn("message", error, details)`) over a pino logger, for code written against
 * `console` (the embedded runner's `logger` option, the Inngest SDK's `logger`): the first string is the message, an
 * Error becomes `err`, other values go to `details`. A leading "[component]" tag is dropped (the logger names it).
 */
export function consoleLike(logger: Logger): ConsoleLike {
  const write =
    (level: "info" | "warn" | "error" | "debug") =>
    (...args: unknown[]) => {
      let message: string | undefined;
      let err: unknown;
      const details: unknown[] = [];
      for (const arg of args) {
        if (message === undefined && typeof arg === "string") message = arg.replace(/^\[[\w:./-]+\]\s*/, "");
        else if (err === undefined && arg instanceof Error) err = arg;
        else details.push(arg);
      }
      const fields: Record<string, unknown> = {};
      if (err) fields.err = err;
      if (details.length === 1) fields.details = details[0];
      else if (details.length > 1) fields.details = details;
      logger[level](fields, message ?? "");
    };
  return { info: write("info"), warn: write("warn"), error: write("error"), debug: write("debug") };
}

/** Writes what is buffered (before the process exits). */
export function flushLogs(): Promise<void> {
  flushLogsSync();
  const logger = logging().root;
  if (!logger) return Promise.resolve();
  return new Promise((resolve) => {
    try {
      logger.flush(() => resolve());
    } catch {
      resolve();
    }
  });
}
