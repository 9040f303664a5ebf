import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { Db } from "@/db";
import { getConfig } from "@/server/config/env";
import { renderMetrics } from "@/server/observability/metrics";
import type { ReadinessReport } from "@/server/runtime/readiness";

/**
 * The operator's endpoints, answered by the Node server before anything else (no API key, no rate limit, no body):
 * - `GET /healthz`: liveness — the process answers (200 `{"status":"ok"}`).
 * - `GET /readyz`: readiness — 200 when every check passes, else 503 naming the failing checks (server/runtime/readiness.ts).
 * - `GET /metrics`: Prometheus exposition. Loopback clients only (and not through a proxy: a request carrying
 *   `X-Forwarded-For` or `Forwarded` is refused) unless `METRICS_TOKEN` is set, then `Authorization: Bearer <token>`
 *   from anywhere.
 */

export const OPS_PATHS = ["/healthz", "/readyz", "/metrics"] as const;
export type OpsPath = (typeof OPS_PATHS)[number];

export type OpsHandlers = {
  readiness: () => Promise<ReadinessReport>;
  /** The database the metrics gauges are read from (null: none). */
  metricsDb: () => Db | null;
};

export function opsPathOf(url: string): OpsPath | null {
  const pathname = url.split("?")[0]!;
  return (OPS_PATHS as readonly string[]).includes(pathname) ? (pathname as OpsPath) : null;
}

function send(req: IncomingMessage, res: ServerResponse, status: number, body: string, contentType = "application/json") {
  res.statusCode = status;
  res.setHeader("content-type", contentType);
  res.setHeader("cache-control", "no-store");
  res.setHeader("content-length", Buffer.byteLength(body));
  res.end(req.method === "HEAD" ? undefined : body);
}

function json(req: IncomingMessage, res: ServerResponse, status: number, body: unknown) {
  send(req, res, status, JSON.stringify(body));
}

export function isLoopback(address: string | undefined): boolean {
  if (!address) return false;
  return address === "::1" || address.startsWith("127.") || address.startsWith("::ffff:127.");
}

function bearerMatches(header: string | undefined, token: string): boolean {
  const match = /^Bearer\s+(\S+)$/i.exec(header?.trim() ?? "");
  if (!match) return false;
  const given = Buffer.from(match[1]!);
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Refusal of a /metrics request, or null when it may be answered. */
function refuseMetrics(req: IncomingMessage): { status: number; error: string; message: string } | null {
  const token = getConfig().METRICS_TOKEN;
  if (token) {
    return bearerMatches(req.headers.authorization, token)
      ? null
      : { status: 401, error: "UNAUTHORIZED", message: "Send Authorization: Bearer <METRICS_TOKEN>." };
  }
  const proxied = req.headers["x-forwarded-for"] !== undefined || req.headers.forwarded !== undefined;
  if (!isLoopback(req.socket.remoteAddress) || proxied) {
    return { status: 403, error: "FORBIDDEN", message: "GET /metrics is served to loopback clients only; set METRICS_TOKEN to scrape it from elsewhere." };
  }
  return null;
}

export async function handleOpsRequest(req: IncomingMessage, res: ServerResponse, path: OpsPath, handlers: OpsHandlers): Promise<void> {
  if (req.method !== "GET" && req.method !== "HEAD") {
    res.setHeader("allow", "GET, HEAD");
    json(req, res, 405, { error: "METHOD_NOT_ALLOWED", message: `${path} answers GET and HEAD.` });
    return;
  }
  if (path === "/healthz") {
    json(req, res, 200, { status: "ok" });
    return;
  }
  if (path === "/readyz") {
    const report = await handlers.readiness();
    const failing = Object.entries(report.checks)
      .filter(([, value]) => value !== "ok")
      .map(([name]) => name);
    json(req, res, report.ready ? 200 : 503, report.ready ? { status: "ready", checks: report.checks } : { status: "unavailable", failing, checks: report.checks });
    return;
  }
  const refusal = refuseMetrics(req);
  if (refusal) {
    json(req, res, refusal.status, { error: refusal.error, message: refusal.message });
    return;
  }
  const { contentType, body } = await renderMetrics(handlers.metricsDb());
  send(req, res, 200, body, contentType);
}
