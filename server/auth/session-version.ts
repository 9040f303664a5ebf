import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { users } from "@/db/schema";

/**
 * Session revocation. Every session JWT carries the user's `users.session_version` from sign-in (`sv`); each request
 * compares it with the stored one (next-auth.ts jwt callback). Bumping the version ends every session issued
 * before: sign-out, password change and removal from an organization do that.
 */

export type SessionClaims = Record<string, unknown> & { uid?: unknown; sv?: unknown };

/** The user behind a session token when the token is still current, with their email as stored now; else null. */
export async function findCurrentSessionUser(db: DbOrTx, claims: SessionClaims): Promise<{ id: string; email: string } | null> {
  if (typeof claims.uid !== "string" || typeof claims.sv !== "number") return null;
  const [user] = await db
    .select({ id: users.id, email: users.email, sessionVersion: users.sessionVersion })
    .from(users)
    .where(eq(users.id, claims.uid))
    .limit(1);
  if (!user || user.sessionVersion !== claims.sv) return null;
  return { id: user.id, email: user.email };
}

/**
 * Ends every session of the user. `ifVersion`: only when that is still the current version (a sign-out with an
 * already revoked token changes nothing).
 */
export async function endUserSessions(db: DbOrTx, params: { userId: string; ifVersion?: number }): Promise<void> {
  await db
    .update(users)
    .set({ sessionVersion: sql`${users.sessionVersion} + 1` })
    .where(and(eq(users.id, params.userId), params.ifVersion === undefined ? undefined : eq(users.sessionVersion, params.ifVersion)));
}
