import type { IncomingMessage, ServerResponse } from "node:http";
import { Readable } from "node:stream";
import { getDb } from "@/db";
import { appBaseUrl } from "@/server/config/settings";
import { INTERNAL_ERROR_MESSAGE } from "@/server/errors";
import { getLogger } from "@/server/observability/logger";
import { respondApiV1, type ApiRequest } from "./api-v1";
import { closeIfBodyUnread, expectsContinue } from "./node-io";
import { BodyTooLargeError } from "./request-body";
import { MACHINE_HEADERS, MAX_BODY_BYTES } from "./voice-events";
import { answerVoiceEventWithAppDeps } from "./voice-events-route";

/**
 * `/api/v1` on Node's own request and response: no fetch Request or Response is built on the way (they cost more
 * than the rest of a cached read, see bench/read-path.ts). The handler reads the headers as Node parsed them and
 * the body only when it asks for it, within the route's limit; the answer is written with its Content-Length.
 */
export async function serveApiV1(req: IncomingMessage, res: ServerResponse) {
  try {
    const answer = await respondApiV1(nodeApiRequest(req, res), { db: getDb(), socketAddress: req.socket.remoteAddress });
    res.statusCode = answer.status;
    for (const key in answer.headers) res.setHeader(key, answer.headers[key]!);
    closeIfBodyUnread(req, res);
    if (answer.body === null || req.method === "HEAD") {
      res.end();
      return;
    }
    res.setHeader("content-length", Buffer.byteLength(answer.body));
    res.end(answer.body);
  } catch (error) {
    answerUnexpectedError(req, res, error);
  }
}

function answerUnexpectedError(req: IncomingMessage, res: ServerResponse, error: unknown) {
  getLogger("http").error({ err: error }, "unexpected error");
  if (!res.headersSent) {
    res.statusCode = 500;
    res.setHeader("content-type", "application/json");
    closeIfBodyUnread(req, res);
  }
  res.end(JSON.stringify({ error: "INTERNAL_SERVER_ERROR", message: INTERNAL_ERROR_MESSAGE }));
}

/** The API handler's view of a Node request; the target is the path as received (checkRequestHead reduced an absolute form). */
function nodeApiRequest(req: IncomingMessage, res: ServerResponse): ApiRequest {
  return {
    method: req.method ?? "GET",
    target: req.url ?? "/",
    header: (name) => {
      const value = req.headers[name];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
    readBody: (limitBytes) => (req.method === "GET" || req.method === "HEAD" ? Promise.resolve(null) : readNodeBody(req, res, limitBytes)),
  };
}

/**
 * The body's bytes, read only now (100 Continue is sent now, not before) and never past `limitBytes`: the reading
 * stops there with BodyTooLargeError and closeIfBodyUnread deals with the rest.
 */
function readNodeBody(req: IncomingMessage, res: ServerResponse, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    if (expectsContinue(req)) res.writeContinue();
    const chunks: Buffer[] = [];
    let received = 0;
    let settled = false;
    const settle = (error: Error | null) => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      if (error) {
        req.pause();
        reject(error);
      } else resolve(Buffer.concat(chunks, received));
    };
    const onData = (chunk: Buffer) => {
      received += chunk.byteLength;
      if (received > limitBytes) settle(new BodyTooLargeError(limitBytes));
      else chunks.push(chunk);
    };
    req.on("data", onData);
    req.once("end", () => settle(null));
    req.once("error", (error) => settle(error));
    req.once("aborted", () => settle(new Error("The client aborted the request.")));
  });
}

/**
 * `POST /api/voice/events` on Node's own request and response (issue 38: a provider posts several events per call,
 * and building a fetch Request with a streamed body, then a Response, cost more CPU than the event's own checks).
 * The same answers as the fetch route (server/http/voice-events.ts): the body is read up to the smaller of the
 * edge's limit and the entry point's 25 MB (413 past it, as a declared Content-Length over 25 MB is without reading),
 * then verified, parsed and applied.
 */
export async function serveVoiceEventOnNode(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number) {
  try {
    const headers = nodeHeaderReader(req);
    const limit = Math.min(maxBodyBytes, MAX_BODY_BYTES);
    let body: string | null = null;
    const declared = headers.get("content-length")?.trim();
    if (!(declared && /^\d+$/.test(declared) && Number(declared) > MAX_BODY_BYTES)) {
      try {
        body = (await readNodeBody(req, res, limit)).toString("utf8");
      } catch (error) {
        if (!(error instanceof BodyTooLargeError)) throw error;
      }
    }
    const answer = await answerVoiceEventWithAppDeps(body, headers);
    const text = JSON.stringify(answer.body);
    res.statusCode = answer.status;
    res.setHeader("content-type", "application/json");
    for (const [key, value] of Object.entries(MACHINE_HEADERS)) res.setHeader(key, value);
    res.setHeader("content-length", Buffer.byteLength(text));
    closeIfBodyUnread(req, res);
    res.end(text);
  } catch (error) {
    answerUnexpectedError(req, res, error);
  }
}

/** A Node request's headers behind the fetch Headers' `get` (several values joined with ", ", as Headers does). */
function nodeHeaderReader(req: IncomingMessage): Pick<Headers, "get"> {
  return {
    get: (name) => {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
}

/** Runs a fetch-style handler `(Request) => Response` on a Node request, streaming the body with its headers as given. */
export async function serveFetch(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number, handle: (request: Request) => Promise<Response>) {
  try {
    const response = await handle(toFetchRequest(req, res, maxBodyBytes));
    res.statusCode = response.status;
    response.headers.forEach((value, key) => res.setHeader(key, value));
    closeIfBodyUnread(req, res);
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
    answerUnexpectedError(req, res, error);
  }
}

/**
 * The fetch Request for a Node request. Its URL is built on the configured base URL, not on the Host header
 * (which a client chooses freely). Its body is read from the socket only as the handler pulls it, never past
 * `maxBodyBytes` (the stream errors with BodyTooLargeError instead), and cancelling it leaves the socket to
 * closeIfBodyUnread rather than destroying it before the answer is written.
 */
function toFetchRequest(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): Request {
  const url = new URL(req.url ?? "/", appBaseUrl());
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
    body: hasBody ? nodeBodyStream(req, res, maxBodyBytes) : undefined,
    // Node's fetch needs this for streamed request bodies.
    ...(hasBody ? { duplex: "half" } : {}),
  } as RequestInit);
}

function nodeBodyStream(req: IncomingMessage, res: ServerResponse, maxBodyBytes: number): ReadableStream<Uint8Array> {
  let started = false;
  let settled = false;
  let received = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        if (!started) {
          started = true;
          if (expectsContinue(req)) res.writeContinue();
          req.on("data", (chunk: Buffer) => {
            if (settled) return;
            received += chunk.byteLength;
            if (received > maxBodyBytes) {
              settled = true;
              req.pause();
              controller.error(new BodyTooLargeError(maxBodyBytes));
              return;
            }
            controller.enqueue(new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength));
            if ((controller.desiredSize ?? 0) <= 0) req.pause();
          });
          req.once("end", () => {
            if (settled) return;
            settled = true;
            controller.close();
          });
          req.once("error", (error) => {
            if (settled) return;
            settled = true;
            controller.error(error);
          });
          req.once("aborted", () => {
            if (settled) return;
            settled = true;
            controller.error(new Error("The client aborted the request."));
          });
        }
        req.resume();
      },
      cancel() {
        settled = true;
        req.pause();
      },
    },
    // Nothing is read ahead: the socket is only read when the handler asks (and 100 Continue only sent then).
    { highWaterMark: 0 },
  );
}
