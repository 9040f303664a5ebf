import http from "node:http";
import https from "node:https";
import net from "node:net";
import { assertAddressAllowed, bareHostname, BlockedAddressError, guardedLookup, type AddressPolicy } from "./address-guard";

export const WEBHOOK_TIMEOUT_MS = 10_000;
const SNIPPET_CHARS = 1024;
/** Bytes of a response body read at most; the rest is discarded (the socket is then closed, not reused). */
const MAX_BODY_BYTES = 64 * 1024;
const USER_AGENT = "OutboundCalling-Webhooks/1.0";

export type WebhookHttpResult = {
  /** Null when no response arrived (timeout, connection error, refused address). */
  statusCode: number | null;
  /** From the start of the request to the end of the (bounded) response body, or to the failure. */
  durationMs: number;
  responseSnippet: string;
  error: string | null;
  /** Parsed `Retry-After` of a 429 or 503 response. */
  retryAfterMs: number | null;
  blockedAddress: boolean;
};

type AgentPair = { http: http.Agent; https: https.Agent };
const agentsByPolicy = new Map<string, AgentPair>();

/** Keep-alive pools, one per address policy, so a socket opened under a looser policy is never reused by a stricter one. */
function agentsFor(policy: AddressPolicy): AgentPair {
  const key = `${policy.allowLoopback}:${policy.allowPrivateNetworks}`;
  let pair = agentsByPolicy.get(key);
  if (!pair) {
    const options = { keepAlive: true, maxSockets: 256, maxFreeSockets: 64, scheduling: "lifo" as const };
    pair = { http: new http.Agent(options), https: new https.Agent(options) };
    agentsByPolicy.set(key, pair);
  }
  return pair;
}

export function parseRetryAfter(value: string | undefined, now: Date): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now.getTime());
}

function describeError(error: NodeJS.ErrnoException, timedOut: boolean, timeoutMs: number): string {
  if (timedOut) return `Timed out after ${timeoutMs / 1000} s without a complete response.`;
  if (error instanceof BlockedAddressError) return error.message;
  switch (error.code) {
    case "ECONNREFUSED":
      return "Connection refused.";
    case "ECONNRESET":
      return "Connection reset by the receiver.";
    case "ENOTFOUND":
      return "The host name does not resolve.";
    case "EAI_AGAIN":
      return "DNS lookup failed (temporary).";
    default:
      return error.code ? `${error.code}: ${error.message}` : error.message || "Request failed.";
  }
}

export type PostWebhookParams = {
  url: string;
  headers: Record<string, string>;
  body: string;
  policy: AddressPolicy;
  timeoutMs?: number;
  now?: () => Date;
};

/**
 * One POST to a webhook receiver. Never throws: every outcome (2xx, non-2xx, timeout, connection error, refused
 * address) is returned, to be recorded as an attempt. Redirects are not followed (a 3xx is a failed attempt).
 */
export function postWebhook(params: PostWebhookParams): Promise<WebhookHttpResult> {
  const timeoutMs = params.timeoutMs ?? WEBHOOK_TIMEOUT_MS;
  const now = params.now ?? (() => new Date());
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const failure = (error: string, blockedAddress = false): WebhookHttpResult => ({
    statusCode: null,
    durationMs: elapsed(),
    responseSnippet: "",
    error,
    retryAfterMs: null,
    blockedAddress,
  });

  let url: URL;
  try {
    url = new URL(params.url);
  } catch {
    return Promise.resolve(failure("Invalid URL."));
  }
  const isHttps = url.protocol === "https:";
  if (!isHttps && url.protocol !== "http:") return Promise.resolve(failure(`Unsupported protocol ${url.protocol}`));
  const host = bareHostname(url.hostname);
  // Literal IPs never reach the lookup hook, so they are checked here.
  if (net.isIP(host)) {
    try {
      assertAddressAllowed(host, params.policy);
    } catch (error) {
      return Promise.resolve(failure((error as Error).message, true));
    }
  }

  return send(false);

  /**
   * `onStaleSocket`: a reset on a kept-alive socket before any response is the receiver closing an idle connection
   * as we reused it (the race Node's docs describe under `request.reusedSocket`), not an answer: sent once more on a
   * connection of its own. The receiver never saw the first one; were it otherwise, the `webhook-id` header lets it
   * drop the repeat.
   */
  function send(onStaleSocket: boolean): Promise<WebhookHttpResult> {
  return new Promise((resolve) => {
    let settled = false;
    let timedOut = false;
    let statusCode: number | null = null;
    let retryAfterMs: number | null = null;
    const chunks: Buffer[] = [];
    let received = 0;

    const finish = (result: WebhookHttpResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result);
    };
    const snippet = () => Buffer.concat(chunks).toString("utf8").slice(0, SNIPPET_CHARS);

    const request = (isHttps ? https : http).request(
      url,
      {
        method: "POST",
        agent: isHttps ? agentsFor(params.policy).https : agentsFor(params.policy).http,
        lookup: guardedLookup(params.policy),
        headers: {
          ...params.headers,
          "user-agent": USER_AGENT,
          "content-length": String(Buffer.byteLength(params.body)),
        },
      },
      (response) => {
        statusCode = response.statusCode ?? null;
        if (statusCode === 429 || statusCode === 503) {
          const header = response.headers["retry-after"];
          retryAfterMs = parseRetryAfter(Array.isArray(header) ? header[0] : header, now());
        }
        response.on("data", (chunk: Buffer) => {
          if (received < MAX_BODY_BYTES) chunks.push(chunk);
          received += chunk.length;
          if (received > MAX_BODY_BYTES) response.destroy();
        });
        response.on("end", () =>
          finish({ statusCode, durationMs: elapsed(), responseSnippet: snippet(), error: null, retryAfterMs, blockedAddress: false }),
        );
        // A body cut short (too large, or the timeout after the status line) keeps the status that arrived.
        response.on("close", () =>
          finish({ statusCode, durationMs: elapsed(), responseSnippet: snippet(), error: null, retryAfterMs, blockedAddress: false }),
        );
      },
    );
    const timer = setTimeout(() => {
      timedOut = true;
      request.destroy(Object.assign(new Error("timeout"), { code: "ETIMEDOUT" }));
    }, timeoutMs);
    request.on("error", (error: NodeJS.ErrnoException) => {
      if (statusCode !== null) {
        finish({ statusCode, durationMs: elapsed(), responseSnippet: snippet(), error: null, retryAfterMs, blockedAddress: false });
        return;
      }
      if (!onStaleSocket && !timedOut && error.code === "ECONNRESET" && request.reusedSocket && !settled) {
        settled = true;
        clearTimeout(timer);
        resolve(send(true));
        return;
      }
      finish(failure(describeError(error, timedOut, timeoutMs), error instanceof BlockedAddressError));
    });
    request.end(params.body);
  });
  }
}
