import { and, asc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships, organizations, users } from "@/db/schema";

/** The organizations a signed-in person belongs to, for the organization switcher. */
export async function listMyOrganizations(db: DbOrTx, params: { userId: string }) {
  const rows = await db
    .select({ orgId: organizations.orgId, name: organizations.name, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(eq(memberships.userId, params.userId))
    .orderBy(asc(organizations.createdAt), asc(organizations.id));
  return { organizations: rows };
}

/** The person's membership of one organization (by its public orgId), or null when they are not a member. */
export async function findMembership(db: DbOrTx, params: { userId: string; orgId: string }) {
  const rows = await db
    .select({
      organizationId: organizations.id,
      orgId: organizations.orgId,
      name: organizations.name,
      role: memberships.role,
      email: users.email,
      userName: users.name,
    })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.userId, params.userId), eq(organizations.orgId, params.orgId)))
    .limit(1);
  return rows[0] ?? null;
}

export async function findOrganizationById(db: DbOrTx, params: { organizationId: string }) {
  const rows = await db
    .select({ orgId: organizations.orgId, name: organizations.name })
    .from(organizations)
    .where(eq(organizations.id, params.organizationId))
    .limit(1);
  return rows[0]!;
}
