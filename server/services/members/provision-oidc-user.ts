import { and, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships, organizations, users, type MemberRole } from "@/db/schema";
import { newId } from "@/server/ids";

export type ProvisionOidcUserParams = {
  email: string;
  name?: string | null;
  /** The identity provider's organization claim: our `organizations.orgId`. */
  orgId: string;
  /** Role named by the provider, used only when the membership is created; the console manages it after that. */
  roleClaim?: unknown;
};

const ROLE_CLAIMS: Record<string, MemberRole> = {
  admin: "admin",
  "org:admin": "admin",
  support: "support",
  "org:support": "support",
  member: "member",
  "org:member": "member",
};

export function roleFromClaim(claim: unknown): MemberRole {
  return typeof claim === "string" ? (ROLE_CLAIMS[claim.toLowerCase()] ?? "member") : "member";
}

export async function findOrganizationByOrgId(db: DbOrTx, orgId: string) {
  const rows = await db.select().from(organizations).where(eq(organizations.orgId, orgId)).limit(1);
  return rows[0] ?? null;
}

/**
 * First OIDC sign-in of a person into an organization: the user (matched by email) and the membership are
 * created if missing. Returns null when the organization claim names no organization of ours (sign-in refused).
 * An existing membership keeps the role an admin gave it in the console.
 */
export async function provisionOidcUser(db: DbOrTx, params: ProvisionOidcUserParams) {
  const email = params.email.trim().toLowerCase();
  return db.transaction(async (tx) => {
    const organization = await findOrganizationByOrgId(tx, params.orgId);
    if (!organization) return null;
    await tx
      .insert(users)
      .values({ id: newId("user"), email, name: params.name?.trim() || email })
      .onConflictDoNothing({ target: users.email });
    const [user] = await tx.select().from(users).where(eq(users.email, email)).limit(1);
    await tx
      .insert(memberships)
      .values({ organizationId: organization.id, userId: user!.id, role: roleFromClaim(params.roleClaim) })
      .onConflictDoNothing();
    const [membership] = await tx
      .select({ role: memberships.role })
      .from(memberships)
      .where(and(eq(memberships.organizationId, organization.id), eq(memberships.userId, user!.id)));
    return { userId: user!.id, email, orgId: organization.orgId, role: membership!.role, sessionVersion: user!.sessionVersion };
  });
}

export async function findUserByEmail(db: DbOrTx, email: string) {
  const rows = await db
    .select()
    .from(users)
    .where(eq(sql`lower(${users.email})`, email.trim().toLowerCase()))
    .limit(1);
  return rows[0] ?? null;
}
