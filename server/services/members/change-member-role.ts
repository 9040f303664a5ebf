import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships, type MemberRole } from "@/db/schema";
import { AppError } from "@/server/errors";
import { assertNotLastAdmin } from "./guard-last-admin";

export type ChangeMemberRoleParams = { organizationId: string; userId: string; role: MemberRole };

export async function changeMemberRole(db: DbOrTx, params: ChangeMemberRoleParams) {
  return db.transaction(async (tx) => {
    if (params.role !== "admin") await assertNotLastAdmin(tx, params);
    const rows = await tx
      .update(memberships)
      .set({ role: params.role })
      .where(and(eq(memberships.organizationId, params.organizationId), eq(memberships.userId, params.userId)))
      .returning({ userId: memberships.userId, role: memberships.role });
    if (!rows[0]) throw new AppError("NOT_FOUND", "This person is not a member of the organization.");
    return rows[0];
  });
}
