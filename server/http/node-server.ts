import http, { type IncomingMessage, type ServerResponse } from "node:http";
import { Readable } from "node:stream";
import next from "next";
import { getDb } from "@/db";
import { serveLocalRecording } from "@/server/storage/serve-local-recording";
import { getTwilioRealtimeEngine } from "@/server/voice";
import { API_PREFIX, handleApiV1 } from "./api-v1";

const RECORDINGS_PREFIX = "/api/recordings/";

/**
 * The production HTTP server: `/api/v1/*` goes straight to the same fetch handler the Next.js route
 * (`app/api/v1/[...path]/route.ts`) uses, everything else to Next.js. Next's per-request routing costs several
 * times more than the whole API request on the hot read path (see bench/read-path.ts), so the public API skips it;
 * behaviour is identical either way (the route file stays for `next dev`-only setups and for tests).
 * Signed recording links are served here too: Next drops the Content-Length of streamed route responses, and
 * players need it (with Range) to seek.
 */
export async function startHttpServer(options: { port: number; dev: boolean; hostname?: string }) {
  const app = next({ dev: options.dev, port: options.port, hostname: options.hostname ?? "localhost" });
  const handleNext = app.getRequestHandler();
  await app.prepare();

  const server = http.createServer((req, res) => {
    if (req.url && (req.url === API_PREFIX || req.url.startsWith(`${API_PREFIX}/`) || req.url.startsWith(`${API_PREFIX}?`))) {
      void serveFetch(req, res, options.port, (request) => handleApiV1(request, { db: getDb() }));
      return;
    }
    if (req.url?.startsWith(RECORDINGS_PREFIX)) {
      void serveFetch(req, res, options.port, (request) => serveLocalRecording(request));
      return;
    }
    void handleNext(req, res);
  });
  server.keepAliveTimeout = 65_000;
  // Twilio Media Streams (VOICE_ENGINE=twilio-realtime): the media WebSocket; Next's own upgrades (dev HMR) pass on.
  const voice = getTwilioRealtimeEngine();
  if (voice) {
    server.on("upgrade", (request, socket, head) => void voice.handleUpgrade(request, socket, head));
  }
  await new Promise<void>((resolve) => server.listen(options.port, resolve));
  return {
    server,
    close: async () => {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await app.close();
    },
  };
}

/** Runs a fetch-style handler `(Request) => Response` on a Node request, streaming the body with its headers as given. */
async function serveFetch(req: IncomingMessage, res: ServerResponse, port: number, handle: (request: Request) => Promise<Response>) {
  try {
    const response = await handle(toFetchRequest(req, port));
    res.statusCode = response.status;
    response.headers.forEach((value, key) => res.setHeader(key, value));
    if (!response.body || req.method === "HEAD") {
      res.end();
      return;
    }
    if (response.headers.has("content-length")) {
      Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]).pipe(res);
      return;
    }
    const body = Buffer.from(await response.arrayBuffer());
    res.setHeader("content-length", body.length);
    res.end(body);
  } catch (error) {
    console.error("[http] unexpected error", error);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.setHeader("content-type", "application/json");
    }
    res.end(JSON.stringify({ error: "INTERNAL_SERVER_ERROR", message: "An unexpected error occurred. Retry with backoff." }));
  }
}

function toFetchRequest(req: IncomingMessage, port: number): Request {
  const host = req.headers.host ?? `localhost:${port}`;
  const url = `http://${host}${req.url ?? "/"}`;
  const headers = new Headers();
  for (const [key, value] of Object.entries(req.headers)) {
    if (Array.isArray(value)) value.forEach((v) => headers.append(key, v));
    else if (value !== undefined) headers.set(key, value);
  }
  const method = req.method ?? "GET";
  const hasBody = method !== "GET" && method !== "HEAD";
  return new Request(url, {
    method,
    headers,
    body: hasBody ? (Readable.toWeb(req) as ReadableStream<Uint8Array>) : undefined,
    // Node's fetch needs this for streamed request bodies.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}
