import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships } from "@/db/schema";
import { endUserSessions } from "@/server/auth/session-version";
import { AppError } from "@/server/errors";
import { assertNotLastAdmin } from "./guard-last-admin";

export type RemoveMemberParams = { organizationId: string; userId: string };

/**
 * Removes the membership; the user keeps their account and other organizations. Their sessions end (every device), so
 * nothing they had open keeps working on a cached page: they sign in again to reach their other organizations.
 */
export async function removeMember(db: DbOrTx, params: RemoveMemberParams) {
  return db.transaction(async (tx) => {
    await assertNotLastAdmin(tx, params);
    const rows = await tx
      .delete(memberships)
      .where(and(eq(memberships.organizationId, params.organizationId), eq(memberships.userId, params.userId)))
      .returning({ userId: memberships.userId });
    if (!rows[0]) throw new AppError("NOT_FOUND", "This person is not a member of the organization.");
    await endUserSessions(tx, { userId: params.userId });
    return { userId: params.userId, removed: true };
  });
}
