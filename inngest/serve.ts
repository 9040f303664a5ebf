import { timingSafeEqual } from "node:crypto";
import type { Inngest, InngestFunction } from "inngest";
import { serve } from "inngest/next";
import { getLogger } from "@/server/observability/logger";
import { recordRunnerRequest } from "@/server/observability/metrics";
import { EMBEDDED_TOKEN_HEADER, embeddedRunnerToken } from "./embedded/transport";
import type { InngestMode } from "./mode";

export type InngestHandler = (request: Request) => Promise<Response>;

export type CreateInngestHandlerOptions = {
  client: Inngest.Any;
  functions: readonly InngestFunction.Any[];
  mode: InngestMode;
};

/**
 * The app's serve handler (`serve()` from inngest/next) as a fetch function. The route exports it for every method;
 * the embedded runner calls the same kind of handler in-process.
 *
 * Trust boundary: in embedded mode the SDK runs in dev mode and checks no signature, so any caller could run a
 * function step. The handler therefore answers 404 unless the request carries this process's runner secret, which
 * never leaves the process. In cloud mode the SDK itself refuses requests not signed with INNGEST_SIGNING_KEY.
 *
 * Every function request (a POST: one or more steps) is timed into `runner_request_duration_seconds`, whoever drives
 * it (the embedded runner or Inngest).
 */
export function createInngestHandler(options: CreateInngestHandlerOptions): InngestHandler {
  const handler = serve({ client: options.client, functions: options.functions });
  const functionIds = new Set(options.functions.map((fn) => fn.id(options.client.id)));
  return async (request: Request) => {
    if (options.mode === "embedded" && !isRunnerRequest(request)) {
      return new Response(JSON.stringify({ error: "NOT_FOUND", message: "Not found." }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }
    if (request.method !== "POST") return handler(request as Parameters<typeof handler>[0], undefined);
    const started = process.hrtime.bigint();
    const response = await handler(request as Parameters<typeof handler>[0], undefined);
    const params = new URL(request.url).searchParams;
    const fnId = params.get("fnId") ?? "";
    const outcome = response.status === 200 ? "completed" : response.status === 206 ? "step" : "error";
    const seconds = Number(process.hrtime.bigint() - started) / 1e9;
    // Only registered IDs become label values (a bounded set).
    recordRunnerRequest({ functionId: functionIds.has(fnId) ? fnId : "unknown", outcome, seconds });
    const line = { function: fnId.slice(0, 100), step: params.get("stepId")?.slice(0, 100), status: response.status, durationMs: Math.round(seconds * 10_000) / 10 };
    // A step that threw is retried by the runner (or fails the run): worth a warning; the rest is routine.
    if (outcome === "error") getLogger("inngest").warn(line, "function request failed");
    else getLogger("inngest").debug(line, "function request");
    return response;
  };
}

function isRunnerRequest(request: Request): boolean {
  const given = Buffer.from(request.headers.get(EMBEDDED_TOKEN_HEADER) ?? "");
  const expected = Buffer.from(embeddedRunnerToken());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
