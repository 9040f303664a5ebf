import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "@/db";
import { readSessionActor, sessionSourceOf } from "@/server/auth/next-auth";
import { clientIp } from "@/server/http/client-ip";
import { consumeConsoleRateLimit } from "@/server/http/console-rate-limit";
import { TRPC_PREFIX, trpcBatchRefusal, trpcErrorBody } from "@/server/http/trpc-errors";
import type { AppErrorCode } from "@/server/errors";
import { ERROR_TABLE } from "@/server/errors";
import { MAX_TRPC_BATCH_SIZE } from "@/server/schemas/limits";
import { createContext } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Mutations from another origin are refused (the session cookie is SameSite=Lax; this closes the rest). */
function isCrossOrigin(req: Request): boolean {
  const origin = req.headers.get("origin");
  if (!origin) return false;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

function trpcError(code: AppErrorCode, message: string, headers: Record<string, string> = {}): Response {
  return new Response(trpcErrorBody(code, message), { status: ERROR_TABLE[code].status, headers: { "content-type": "application/json", ...headers } });
}

/**
 * The console's endpoint. The production server has already refused oversized or unframed bodies, malformed paths and
 * oversized batches (server/http/next-edge.ts); the batch check is repeated here for `next dev`. Then the rate limit:
 * per signed-in person, or per client address without a session — before the body is read or a procedure runs.
 */
async function handler(req: Request) {
  if (req.method === "POST" && isCrossOrigin(req)) return trpcError("FORBIDDEN", "Cross-origin request refused.");
  const url = new URL(req.url);
  const batch = trpcBatchRefusal(`${url.pathname}${url.search}`);
  if (batch) return trpcError(batch.code, batch.message);
  // Read (and its session version checked) once per HTTP request, however many procedures the batch holds.
  const session = readSessionActor(sessionSourceOf(req));
  const actor = await session;
  const limit = await consumeConsoleRateLimit(actor ? { userId: actor.userId } : { address: clientIp(req.headers) });
  if (!limit.allowed) return trpcError("RATE_LIMITED", limit.message, limit.headers);
  const response = await fetchRequestHandler({
    endpoint: TRPC_PREFIX,
    req,
    router: appRouter,
    maxBatchSize: MAX_TRPC_BATCH_SIZE,
    createContext: () => createContext({ db: getDb(), headers: req.headers, getSession: () => session, source: "dashboard" }),
  });
  for (const [key, value] of Object.entries(limit.headers)) response.headers.set(key, value);
  return response;
}

export { handler as GET, handler as POST };
