import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships } from "@/db/schema";
import { AppError } from "@/server/errors";
import { assertNotLastAdmin } from "./guard-last-admin";

export type RemoveMemberParams = { organizationId: string; userId: string };

/** Removes the membership only; the user keeps their account and other organizations. */
export async function removeMember(db: DbOrTx, params: RemoveMemberParams) {
  return db.transaction(async (tx) => {
    await assertNotLastAdmin(tx, params);
    const rows = await tx
      .delete(memberships)
      .where(and(eq(memberships.organizationId, params.organizationId), eq(memberships.userId, params.userId)))
      .returning({ userId: memberships.userId });
    if (!rows[0]) throw new AppError("NOT_FOUND", "This person is not a member of the organization.");
    return { userId: params.userId, removed: true };
  });
}
