/**
 * Next.js calls register() once per server process. In the Node.js runtime, with a database and no Inngest
 * settings (embedded mode, see inngest/client.ts), it starts the embedded services: the Inngest runner today.
 */
export async function register() {
  if (process.env.NEXT_RUNTIME !== "nodejs" || !process.env.DATABASE_URL) return;
  const { resolveInngestMode } = await import("./inngest/client");
  if (resolveInngestMode() !== "embedded") return;
  const { startEmbeddedServices } = await import("./server/runtime/start-embedded-services");
  await startEmbeddedServices();
}
