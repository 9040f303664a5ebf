import type { IncomingMessage } from "node:http";
import { getToken } from "next-auth/jwt";
import type { Db } from "@/db";
import { getConfig } from "@/server/config/env";
import type { SessionActor } from "./session-actor";
import { findCurrentSessionUser } from "./session-version";

function cookiesOf(header: string | undefined): Record<string, string> {
  const cookies: Record<string, string> = {};
  for (const part of (header ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    const value = part.slice(index + 1).trim();
    try {
      cookies[part.slice(0, index).trim()] = decodeURIComponent(value);
    } catch {
      cookies[part.slice(0, index).trim()] = value;
    }
  }
  return cookies;
}

/**
 * The console's signed-in person from a raw Node request (a WebSocket upgrade, served by the custom server, outside
 * Next's module graph): the session cookie's JWT read with next-auth's own `getToken` (same secret, same cookie name),
 * then the same session-version check the jwt callback makes on every request (server/auth/next-auth.ts), so a
 * signed-out or revoked session is refused here too. next-auth's `getServerSession` is not used: its provider modules
 * are CommonJS defaults that only Next's bundler unwraps.
 */
export async function readUpgradeActor(db: Db, request: IncomingMessage, secret = getConfig().NEXTAUTH_SECRET): Promise<SessionActor | null> {
  if (!secret) return null;
  const token = await getToken({ req: { headers: request.headers, cookies: cookiesOf(request.headers.cookie) } as never, secret });
  if (!token) return null;
  const user = await findCurrentSessionUser(db, token);
  if (!user) return null;
  return { userId: user.id, email: user.email, activeOrgId: typeof token.activeOrgId === "string" ? token.activeOrgId : null };
}
