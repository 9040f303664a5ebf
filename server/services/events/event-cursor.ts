import { AppError } from "@/server/errors";

/**
 * Cursors of GET /events are opaque to clients: base64url of `e1:<position>`. The version prefix lets the format change
 * without breaking cursors clients hold (a new format would still read `e1:`).
 */
const PREFIX = "e1:";

export function encodeEventCursor(position: number): string {
  return Buffer.from(`${PREFIX}${position}`, "utf8").toString("base64url");
}

/** The position a cursor stands for; 400 INVALID_REQUEST for anything this API did not hand out. */
export function decodeEventCursor(cursor: string): number {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor) ? Buffer.from(cursor, "base64url").toString("utf8") : "";
  const digits = text.startsWith(PREFIX) ? text.slice(PREFIX.length) : "";
  const position = /^\d{1,15}$/.test(digits) ? Number(digits) : NaN;
  if (!Number.isSafeInteger(position)) throw new AppError("INVALID_REQUEST", "Invalid request: after: is not a cursor returned by GET /events (use nextCursor).");
  return position;
}
