import { asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships, users } from "@/db/schema";

export type ListMembersParams = { organizationId: string };

export async function listMembers(db: DbOrTx, params: ListMembersParams) {
  const rows = await db
    .select({
      userId: users.id,
      email: users.email,
      name: users.name,
      role: memberships.role,
      hasPassword: users.passwordHash,
      joinedAt: memberships.createdAt,
    })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(eq(memberships.organizationId, params.organizationId))
    .orderBy(asc(users.email));
  return {
    members: rows.map((row) => ({
      userId: row.userId,
      email: row.email,
      name: row.name,
      role: row.role,
      signInMethod: row.hasPassword ? ("password" as const) : ("sso" as const),
      joinedAt: row.joinedAt.toISOString(),
    })),
  };
}
