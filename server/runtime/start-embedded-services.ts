import { getDb } from "@/db";
import { inngestMode } from "@/inngest/client";
import { createEmbeddedRunner, type EmbeddedRunner } from "@/inngest/embedded";
import { isEmbeddedMode } from "@/server/config/settings";
import { describeEmbeddedSimulator, ensureEmbeddedChiliPiperSimulator, type EmbeddedSimulatorHandle } from "@/server/simulators/chili-piper/embedded";
import { simulatorEventsUrl, startVoiceEngine } from "@/server/voice";

type EmbeddedServices = { runner: EmbeddedRunner | null; stop: () => Promise<void> };

const holder = globalThis as unknown as { __embeddedServices?: Promise<EmbeddedServices> };

/**
 * Starts the in-process services of embedded mode, once per process (Next.js may evaluate instrumentation in
 * several bundles; the promise lives on globalThis): the calendar provider's simulator (embedded mode), the voice
 * engine, and the embedded Inngest runner.
 */
export function startEmbeddedServices(): Promise<EmbeddedServices> {
  holder.__embeddedServices ??= start().catch((error) => {
    holder.__embeddedServices = undefined;
    throw error;
  });
  return holder.__embeddedServices;
}

async function start(): Promise<EmbeddedServices> {
  // Calendar provider (DESIGN §8): the Chili Piper Edge API simulator on loopback, unless CHILI_PIPER_BASE_URL is set.
  // Before the runner, so the first booking a run makes finds it.
  let calendar: EmbeddedSimulatorHandle | null = null;
  if (isEmbeddedMode()) {
    try {
      calendar = await ensureEmbeddedChiliPiperSimulator();
      if (calendar) console.info(`[chili-piper-simulator] ${describeEmbeddedSimulator(calendar)}`);
    } catch (error) {
      console.error("[chili-piper-simulator] could not start; calendar booking will fail until it runs", error);
    }
  }
  // Voice engine (DESIGN §7): the simulator by default; it reports calls to this server's /api/voice/events.
  const voice = startVoiceEngine();
  console.info(`[voice] ${voice.kind} engine ready${voice.kind === "simulator" ? `, reporting to ${simulatorEventsUrl()}` : ""}`);
  let runner: EmbeddedRunner | null = null;
  if (inngestMode === "embedded") {
    runner = createEmbeddedRunner({ db: getDb(), autoPoll: true });
    await runner.start();
    console.info(`[inngest-embedded] runner ${runner.id} started with ${runner.functions().size} function(s)`);
  }
  const stop = async () => {
    // Requests in flight stop at their next step; those still running after 10 s are handed to another instance.
    await runner?.stop({ timeoutMs: 10_000 });
    await calendar?.stop();
  };
  process.once("SIGTERM", () => void stop());
  return { runner, stop };
}
