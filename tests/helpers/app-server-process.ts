/**
 * The app as `npm start` runs it, minus Next.js (no build in tests): the configuration validated, the database
 * migrated (DATABASE_URL), demo data on SEED_DEMO=1, the in-process services that instrumentation.ts starts (the
 * embedded Inngest runner, the voice engine, the calendar simulator on a demo instance), the production HTTP server
 * (/api/v1, /healthz, /readyz, /metrics) on $PORT, and the graceful shutdown on SIGTERM (server/runtime/shutdown.ts).
 * Next.js's pages answer 404; the one Next route the engine needs, the voice engine's event callback, is served by
 * its route handler. Sends `{ port }` over IPC once listening.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { POST as voiceEvents } from "@/app/api/voice/events/route";
import { ensureDemoData, resolveDatabase, validateConfiguration } from "@/scripts/lib";
import { getConfig } from "@/server/config/env";
import { appBaseUrl } from "@/server/config/settings";
import { closeGracefully, createHttpServer } from "@/server/http/node-server";
import { getLogger } from "@/server/observability/logger";
import { installShutdownHandlers } from "@/server/runtime/shutdown";
import { startEmbeddedServices } from "@/server/runtime/start-embedded-services";

async function serveRoute(req: IncomingMessage, res: ServerResponse, handler: (request: Request) => Promise<Response>) {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
  const response = await handler(new Request(new URL(req.url!, appBaseUrl()), { method: req.method, headers, body: Buffer.concat(chunks) }));
  res.statusCode = response.status;
  response.headers.forEach((value, key) => res.setHeader(key, value));
  if (response.body) Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]).pipe(res);
  else res.end();
}

async function main() {
  validateConfiguration();
  const { url } = await resolveDatabase();
  await ensureDemoData(url, `${appBaseUrl()}/api/v1`);
  await startEmbeddedServices();
  const server = createHttpServer({
    handleNext: (req, res) => {
      if (req.method === "POST" && req.url?.startsWith("/api/voice/events")) {
        void serveRoute(req, res, voiceEvents);
        return;
      }
      res.statusCode = 404;
      res.end("next");
    },
  });
  const port = getConfig().PORT;
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  installShutdownHandlers({ closeHttp: (budgetMs) => closeGracefully(server, budgetMs) });
  getLogger("start").info({ port }, "test app server ready");
  process.send?.({ port });
}

main().catch((error: unknown) => {
  getLogger("start").fatal({ err: error }, "the test app server could not start");
  process.exit(1);
});
