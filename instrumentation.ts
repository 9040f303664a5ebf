/**
 * Next.js calls register() once per server process. In the Node.js runtime, with a database (scripts/start.ts sets
 * DATABASE_URL, to the embedded cluster by default), it starts the server's in-process services: the embedded
 * Inngest runner or the sync with Inngest, the voice engine, and the calendar simulator on a demo instance
 * (server/runtime/start-embedded-services.ts). NEXT_RUNTIME is Next.js's own variable, not a setting.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { getConfig } = await import("./server/config/env");
  if (!getConfig().DATABASE_URL) return;
  const { startEmbeddedServices } = await import("./server/runtime/start-embedded-services");
  await startEmbeddedServices();
}
