import { getDb } from "@/db";
import { inngestMode } from "@/inngest/client";
import { createEmbeddedRunner, type EmbeddedRunner } from "@/inngest/embedded";

type EmbeddedServices = { runner: EmbeddedRunner | null; stop: () => Promise<void> };

const holder = globalThis as unknown as { __embeddedServices?: Promise<EmbeddedServices> };

/**
 * Starts the in-process services of embedded mode, once per process (Next.js may evaluate instrumentation in
 * several bundles; the promise lives on globalThis). Today: the embedded Inngest runner, polling the app database.
 * Later embedded services (simulators) start here too.
 */
export function startEmbeddedServices(): Promise<EmbeddedServices> {
  holder.__embeddedServices ??= start().catch((error) => {
    holder.__embeddedServices = undefined;
    throw error;
  });
  return holder.__embeddedServices;
}

async function start(): Promise<EmbeddedServices> {
  let runner: EmbeddedRunner | null = null;
  if (inngestMode === "embedded") {
    runner = createEmbeddedRunner({ db: getDb(), autoPoll: true });
    await runner.start();
    console.info(`[inngest-embedded] runner ${runner.id} started with ${runner.functions().size} function(s)`);
  }
  const stop = async () => {
    await runner?.stop();
  };
  process.once("SIGTERM", () => void stop());
  return { runner, stop };
}
