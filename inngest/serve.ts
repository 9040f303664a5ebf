import { timingSafeEqual } from "node:crypto";
import type { Inngest, InngestFunction } from "inngest";
import { serve } from "inngest/next";
import type { InngestMode } from "./client";
import { EMBEDDED_TOKEN_HEADER, embeddedRunnerToken } from "./embedded/transport";

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
 */
export function createInngestHandler(options: CreateInngestHandlerOptions): InngestHandler {
  const handler = serve({ client: options.client, functions: options.functions });
  return async (request: Request) => {
    if (options.mode === "embedded" && !isRunnerRequest(request)) {
      return new Response(JSON.stringify({ error: "NOT_FOUND", message: "Not found." }), {
        status: 404,
        headers: { "content-type": "application/json" },
      });
    }
    return handler(request as Parameters<typeof handler>[0], undefined);
  };
}

function isRunnerRequest(request: Request): boolean {
  const given = Buffer.from(request.headers.get(EMBEDDED_TOKEN_HEADER) ?? "");
  const expected = Buffer.from(embeddedRunnerToken());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
