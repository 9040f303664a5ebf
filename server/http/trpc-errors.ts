import { TRPC_ERROR_CODES_BY_KEY } from "@trpc/server/rpc";
import { ERROR_TABLE, type AppErrorCode } from "@/server/errors";
import { MAX_TRPC_BATCH_SIZE } from "@/server/schemas/limits";

/** The console's endpoint. */
export const TRPC_PREFIX = "/api/trpc";

/**
 * An error answered for the whole request before tRPC runs (413, 411, 429, an oversized batch), in the shape tRPC's own
 * errors have after our errorFormatter (server/trpc/init.ts): `{error: {message, code, data: {appCode, message,
 * httpStatus}}}`. The console's client reads `data.appCode` and `data.message`; for a batch it gives this one error to
 * every call of the batch (httpBatchLink accepts a single error object for a batch).
 */
export function trpcErrorBody(code: AppErrorCode, message: string, details?: Record<string, unknown>): string {
  const { status, trpc } = ERROR_TABLE[code];
  return JSON.stringify({
    error: { message, code: TRPC_ERROR_CODES_BY_KEY[trpc], data: { appCode: code, message, httpStatus: status, ...(details ? { details } : {}) } },
  });
}

/**
 * How many procedure calls a console request holds: a batch (`?batch=1`) names them in the path, comma-separated
 * (`/api/trpc/a,b,c`); anything else is one. Counted from the URL alone, before the body is read.
 */
export function trpcCallCount(target: string): number {
  const queryAt = target.indexOf("?");
  const pathname = queryAt < 0 ? target : target.slice(0, queryAt);
  const search = new URLSearchParams(queryAt < 0 ? "" : target.slice(queryAt + 1));
  if (search.get("batch") !== "1") return 1;
  const procedures = pathname.slice(TRPC_PREFIX.length + 1);
  // A comma may also arrive percent-encoded; tRPC decodes the path before splitting it.
  return procedures.split(/,|%2c/i).length;
}

/** 400 for a batch over MAX_TRPC_BATCH_SIZE calls, naming the limit; null when within it. */
export function trpcBatchRefusal(target: string): { code: AppErrorCode; message: string } | null {
  const calls = trpcCallCount(target);
  if (calls <= MAX_TRPC_BATCH_SIZE) return null;
  return {
    code: "INVALID_REQUEST",
    message: `A batched request may hold at most ${MAX_TRPC_BATCH_SIZE} procedure calls; this one holds ${calls}. Split it into several requests.`,
  };
}
