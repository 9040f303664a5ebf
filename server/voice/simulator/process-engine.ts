import { fork, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import path from "node:path";
import { getLogger } from "@/server/observability/logger";
import { forgetRecordingOrigin, trustRecordingOrigin } from "@/server/voice/recording-origins";
import type { PlaceCallResult, ProviderCallState, VoiceEngine } from "@/server/voice/types";
import type { FromSimulatorProcess, SimulatorProcessSettings, SimulatorReply, ToSimulatorProcess } from "./process-protocol";
import { simulatorMaxCallWallSeconds } from "./simulator";

export type SimulatorProcessOptions = {
  /** The app's provider-event entry point the simulator posts to. */
  eventsUrl: string;
  /** The secret its events are signed with (the app's `voiceEventsSecret()`). */
  secret: Buffer;
  msPerSimulatedSecond?: number;
  maxConversationMs?: number;
  transcriptBatchMs?: number;
  /** The process's entry file (default `server/voice/simulator/process-entry.ts` under the working directory). */
  entry?: string;
  /** Longest wait for the process to answer a request (default 10 s). */
  replyTimeoutMs?: number;
  /** Longest wait for a new process to be ready (default 60 s: tsx compiles the entry on a loaded machine). */
  startTimeoutMs?: number;
  /** Delays before starting a new process after one died, by consecutive early deaths (default 0 s, 1 s, 5 s, 15 s, 30 s). */
  restartDelaysMs?: number[];
};

export type SimulatorProcessEngine = VoiceEngine & {
  kind: "simulator";
  /** Resolves when a simulator process is ready; rejects when the current one could not start, or none is running. */
  ready(): Promise<void>;
  /** The running simulator process's ID (null while none runs, e.g. between a death and its restart). */
  pid(): number | null;
  /** Stops the simulator process (SIGTERM, then SIGKILL after `budgetMs`) and starts no new one. */
  stop(budgetMs?: number): Promise<void>;
  /** Hangs up the calls in the air and resolves (with their number) once their events reached the app. */
  hangUpAll(): Promise<number>;
};

/** A request made while no simulator process runs, or to one that died before answering: a provider outage. */
export class SimulatorProcessDownError extends Error {}

/** A process that lived this long before dying starts the restart delays over. */
const HEALTHY_RUN_MS = 30_000;

type Running = {
  child: ChildProcess;
  startedAt: number;
  ready: Promise<void>;
  isReady: boolean;
  failStart: (error: Error) => void;
  recordingOrigin: string | null;
  exited: boolean;
  pending: Map<number, { resolve: (value: SimulatorReply) => void; reject: (error: Error) => void; timer: NodeJS.Timeout }>;
};

/**
 * The simulator in its own process, as a provider is (issue 16: its conversations and event posts cost the app's
 * event loop nothing). This is the app side, a thin `VoiceEngine`: `placeCall` and `endCall` are requests over the
 * fork's IPC channel, answered by the simulator in the child (idempotent by callId there, as in-process); the child
 * posts the signed events to `/api/voice/events` over HTTP and serves the recordings, whose host origin it announces
 * when ready and this side trusts for the entry point's download (recording-origins.ts).
 *
 * When the child dies, it is logged and a new one started (after 0 s, then longer while it keeps dying early); the
 * calls it had in the air never report and the watchdog fails them, as with a provider that lost them. Requests in
 * flight, and requests while no child runs, fail with `SimulatorProcessDownError`: the dialer treats a thrown
 * `placeCall` as a provider outage (retried later, then failed). The child exits when this process goes away.
 */
export function createSimulatorProcessEngine(options: SimulatorProcessOptions): SimulatorProcessEngine {
  const log = getLogger("voice-simulator");
  // turbopackIgnore: the entry is run by tsx in its own process, not bundled with the app (nor traced by the build).
  const entry = options.entry ?? path.join(/* turbopackIgnore: true */ process.cwd(), "server/voice/simulator/process-entry.ts");
  if (!existsSync(/* turbopackIgnore: true */ entry)) throw new Error(`the voice simulator's entry file ${entry} is missing (the app runs from its own directory)`);
  const replyTimeoutMs = options.replyTimeoutMs ?? 10_000;
  const startTimeoutMs = options.startTimeoutMs ?? 60_000;
  const restartDelaysMs = options.restartDelaysMs ?? [0, 1000, 5000, 15_000, 30_000];
  const settings: SimulatorProcessSettings = {
    eventsUrl: options.eventsUrl,
    secretBase64: options.secret.toString("base64"),
    msPerSimulatedSecond: options.msPerSimulatedSecond,
    maxConversationMs: options.maxConversationMs,
    transcriptBatchMs: options.transcriptBatchMs ?? 0,
  };
  let current: Running | null = null;
  let stopped = false;
  let earlyDeaths = 0;
  let restartTimer: NodeJS.Timeout | null = null;
  let nextRequestId = 1;
  const killOnExit = () => current?.child.kill("SIGKILL");
  process.once("exit", killOnExit);

  function startProcess(): Running {
    const child = fork(/* turbopackIgnore: true */ entry, [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    let markReady!: () => void;
    let failStart!: (error: Error) => void;
    const running: Running = {
      child,
      startedAt: Date.now(),
      ready: new Promise<void>((resolve, reject) => {
        markReady = resolve;
        failStart = reject;
      }),
      isReady: false,
      failStart: (error) => failStart(error),
      recordingOrigin: null,
      exited: false,
      pending: new Map(),
    };
    running.ready.catch(() => {});
    const startTimer = setTimeout(() => {
      log.error({ pid: child.pid, timeoutMs: startTimeoutMs }, "the voice simulator process did not get ready in time: killing it");
      child.kill("SIGKILL");
    }, startTimeoutMs);
    startTimer.unref();
    child.on("message", (message: FromSimulatorProcess) => {
      if (message.type === "ready") {
        clearTimeout(startTimer);
        running.isReady = true;
        running.recordingOrigin = message.recordingOrigin;
        trustRecordingOrigin(message.recordingOrigin);
        // Once ready, neither the child nor its channel keeps this process alive (the app's server does; the child
        // follows it out); while it starts, they do, so a start awaited on an otherwise idle loop completes.
        child.unref();
        (child.channel as { unref?: () => void } | undefined)?.unref?.();
        log.info({ pid: child.pid, recordingHost: message.recordingOrigin }, `voice simulator process ready, reporting to ${options.eventsUrl}`);
        markReady();
        return;
      }
      const request = running.pending.get(message.id);
      if (!request) return;
      running.pending.delete(message.id);
      clearTimeout(request.timer);
      if (message.ok) request.resolve(message.value);
      else request.reject(new Error(message.message));
    });
    child.on("error", (error) => log.error({ err: error, pid: child.pid }, "voice simulator process error"));
    child.once("exit", (code, signal) => {
      clearTimeout(startTimer);
      onExit(running, code, signal);
    });
    child.send({ type: "start", settings } satisfies ToSimulatorProcess);
    return running;
  }

  function onExit(running: Running, code: number | null, signal: NodeJS.Signals | null) {
    running.exited = true;
    if (current === running) current = null;
    if (running.recordingOrigin) forgetRecordingOrigin(running.recordingOrigin);
    const gone = new SimulatorProcessDownError(`the voice simulator process exited (${signal ?? `code ${code}`})`);
    for (const request of running.pending.values()) {
      clearTimeout(request.timer);
      request.reject(gone);
    }
    running.pending.clear();
    if (stopped) {
      if (!running.isReady) running.failStart(gone);
      return;
    }
    const lived = Date.now() - running.startedAt;
    earlyDeaths = lived >= HEALTHY_RUN_MS ? 0 : earlyDeaths;
    const delayMs = restartDelaysMs[Math.min(earlyDeaths, restartDelaysMs.length - 1)] ?? 0;
    earlyDeaths += 1;
    log.error(
      { pid: running.child.pid, code, signal, livedMs: lived, restartInMs: delayMs },
      "the voice simulator process exited: starting a new one (the calls it had in the air are failed by the watchdog)",
    );
    // After the log: the start's rejection reaches whoever awaits it (the app's start, a placeCall).
    if (!running.isReady) running.failStart(gone);
    restartTimer = setTimeout(() => {
      restartTimer = null;
      if (!stopped) current = startProcess();
    }, delayMs);
    restartTimer.unref();
  }

  async function ask<T extends SimulatorReply>(build: (id: number) => Extract<ToSimulatorProcess, { id: number }>): Promise<T> {
    const running = current;
    if (!running) throw new SimulatorProcessDownError("the voice simulator process is not running (a new one is being started)");
    await running.ready;
    if (running.exited) throw new SimulatorProcessDownError("the voice simulator process exited");
    return new Promise<T>((resolve, reject) => {
      const id = nextRequestId++;
      const timer = setTimeout(() => {
        running.pending.delete(id);
        reject(new Error(`the voice simulator process did not answer within ${replyTimeoutMs} ms`));
      }, replyTimeoutMs);
      running.pending.set(id, { resolve: resolve as (value: SimulatorReply) => void, reject, timer });
      running.child.send(build(id), (error) => {
        if (!error || !running.pending.delete(id)) return;
        clearTimeout(timer);
        reject(new SimulatorProcessDownError(`the voice simulator process could not be reached: ${error.message}`));
      });
    });
  }

  current = startProcess();

  return {
    kind: "simulator",
    maxCallWallSeconds: simulatorMaxCallWallSeconds(options.maxConversationMs),

    placeCall: (request) => ask<PlaceCallResult>((id) => ({ type: "place", id, request })),

    async endCall(callId) {
      try {
        return await ask<boolean>((id) => ({ type: "end", id, callId }));
      } catch (error) {
        // No simulator process, or it died: the call is not live here any more.
        if (error instanceof SimulatorProcessDownError) return false;
        throw error;
      }
    },

    // While no process runs this throws (the watchdog waits); a new process knows none of the dead one's calls: `unknown`.
    callState: (call) => ask<ProviderCallState>((id) => ({ type: "state", id, callId: call.callId, providerCallId: call.providerCallId })),

    async hangUpAll() {
      try {
        return await ask<number>((id) => ({ type: "end-all", id }));
      } catch (error) {
        if (error instanceof SimulatorProcessDownError) return 0;
        throw error;
      }
    },

    async ready() {
      if (!current) throw new SimulatorProcessDownError("the voice simulator process is not running (a new one is being started)");
      await current.ready;
    },

    pid: () => (current && !current.exited ? (current.child.pid ?? null) : null),

    async stop(budgetMs = 5000) {
      stopped = true;
      process.off("exit", killOnExit);
      if (restartTimer) clearTimeout(restartTimer);
      const running = current;
      if (!running || running.exited) return;
      const exited = new Promise<void>((resolve) => running.child.once("exit", () => resolve()));
      running.child.kill("SIGTERM");
      const timer = setTimeout(() => running.child.kill("SIGKILL"), Math.max(0, budgetMs - 500));
      await exited;
      clearTimeout(timer);
    },
  };
}
