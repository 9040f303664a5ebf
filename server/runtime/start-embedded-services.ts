import { getDb } from "@/db";
import { inngest, inngestMode } from "@/inngest/client";
import { createEmbeddedRunner, type EmbeddedRunner } from "@/inngest/embedded";
import { functions } from "@/inngest/functions";
import { createInngestHandler } from "@/inngest/serve";
import { carrierOfEngine } from "@/server/carriers/registry";
import { isDemoInstance } from "@/server/config/settings";
import { getConfig } from "@/server/config/env";
import { consoleLike, getLogger } from "@/server/observability/logger";
import { describeEmbeddedSimulator, ensureEmbeddedChiliPiperSimulator, type EmbeddedSimulatorHandle } from "@/server/simulators/chili-piper/embedded";
import { simulatorEventsUrl, startVoiceEngine } from "@/server/voice";
import { onShutdown } from "./lifecycle";
import { registerWithInngest } from "./register-inngest";
import { processSingleton } from "./process-singleton";

type EmbeddedServices = { runner: EmbeddedRunner | null };

/** The start, once per process (server/runtime/process-singleton.ts); forgotten when it fails, so a retry starts again. */
const holder = () => processSingleton("embeddedServices", () => ({ started: undefined as Promise<EmbeddedServices> | undefined }));

/**
 * Starts the in-process services of the server, once per process (Next.js may evaluate instrumentation in several
 * bundles; the promise is process-wide): the calendar simulator on a demo instance, the voice engine, and the
 * embedded Inngest runner (or, with Inngest Cloud / self-hosted, the app's sync with Inngest). Each registers its
 * stop with the shutdown (server/runtime/lifecycle.ts); scripts/start.ts runs them on SIGTERM.
 */
export function startEmbeddedServices(): Promise<EmbeddedServices> {
  const services = holder();
  services.started ??= start().catch((error) => {
    services.started = undefined;
    throw error;
  });
  return services.started;
}

/**
 * Lets the runner's steps in flight finish within `budgetMs`: each request stops at its next step boundary (its
 * finished steps kept); the leases of requests still running when the budget passes are released, so another instance
 * (or this one after a restart) takes them over at once. Nothing done is lost: the state is in Postgres.
 */
export async function stopRunnerWithin(runner: EmbeddedRunner, budgetMs: number): Promise<{ released: number }> {
  return runner.stop({ timeoutMs: budgetMs });
}

async function start(): Promise<EmbeddedServices> {
  const log = getLogger("services");
  // Calendar provider (DESIGN §8): the Chili Piper Edge API simulator on loopback on a demo instance, unless
  // CHILI_PIPER_BASE_URL is set. Before the runner, so the first booking a run makes finds it.
  let calendar: EmbeddedSimulatorHandle | null = null;
  if (isDemoInstance()) {
    try {
      calendar = await ensureEmbeddedChiliPiperSimulator();
      if (calendar) log.info({ simulator: "chili-piper" }, describeEmbeddedSimulator(calendar));
    } catch (error) {
      log.error({ err: error }, "the calendar simulator could not start; calendar booking will fail until it runs");
    }
  }
  if (calendar?.startedHere) onShutdown("calendar-simulator", "services", () => calendar.stop());
  // Voice engine (DESIGN §7): the simulator by default, in a child process of its own (VOICE_SIMULATOR_PROCESS); it
  // reports calls to this server's /api/voice/events. Its process stops with the simulators, after the drain.
  const { engine: voice, stop: stopVoice, endCallsInTheAir } = await startVoiceEngine();
  if (stopVoice) onShutdown("voice-simulator", "services", stopVoice);
  // First of all on SIGTERM: the calls in the air here end now and are reported while the server still takes their
  // events; the analysis and the webhook follow from the runner's tables (here or after a restart), once each.
  if (endCallsInTheAir) {
    onShutdown("calls-in-the-air", "calls", async (budgetMs) => {
      const ended = await endCallsInTheAir(budgetMs);
      if (ended > 0) log.info({ ended }, "calls in the air were ended for the shutdown");
    });
  }
  log.info({ engine: voice.kind }, `${voice.kind} voice engine ready${carrierOfEngine(voice.kind).postsEventsToLoopback ? `, reporting to ${simulatorEventsUrl()}` : ""}`);
  let runner: EmbeddedRunner | null = null;
  if (inngestMode === "embedded") {
    const { INNGEST_EMBEDDED_WORKERS: concurrency, INNGEST_EMBEDDED_FUNCTION_SHARE: functionShare } = getConfig();
    const started = createEmbeddedRunner({ db: getDb(), autoPoll: true, concurrency, functionShare, logger: consoleLike(getLogger("inngest-embedded")) });
    await started.start();
    runner = started;
    // The runner's own timeout comes a second before the stage's, so the lease release it does then finishes in time.
    onShutdown("embedded-runner", "drain", async (budgetMs) => {
      const { released } = await stopRunnerWithin(started, Math.max(0, budgetMs - 1000));
      if (released > 0) log.warn({ released }, "runner stopped with requests still running: their leases were released for another instance");
    });
    log.info({ runnerId: started.id, functions: started.functions().size }, "embedded Inngest runner started");
  } else {
    // Not awaited: the server takes no traffic until /readyz says the sync succeeded.
    void registerWithInngest({ handler: createInngestHandler({ client: inngest, functions, mode: inngestMode }) });
  }
  return { runner };
}
