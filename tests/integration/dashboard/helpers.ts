import { memberships, users, type MemberRole } from "@/db/schema";
import type { Db } from "@/db";
import { newId } from "@/server/ids";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";
import { createTestOrganization } from "../../factories";

/** A signed-in dashboard user's caller for one organization, exactly as the /api/trpc route builds it. */
export function sessionCaller(db: Db, session: { userId: string; email: string } | null, orgId: string | null, now?: () => Date) {
  const headers = new Headers(orgId ? { "x-org-id": orgId } : {});
  return createCaller(
    createContext({ db, headers, source: "dashboard", getSession: async () => (session ? { ...session, activeOrgId: null } : null), now }),
  );
}

export async function createUser(db: Db, email = `${newId("user").slice(5)}@test.example`) {
  const id = newId("user");
  await db.insert(users).values({ id, email, name: "" });
  return { userId: id, email };
}

/** An organization with one user per role, and their callers. */
export async function createOrgWithRoles(db: Db) {
  const { organization, apiKey } = await createTestOrganization(db);
  const people = {} as Record<MemberRole, { userId: string; email: string }>;
  for (const role of ["admin", "support", "member"] as const) {
    const user = await createUser(db);
    await db.insert(memberships).values({ organizationId: organization.id, userId: user.userId, role });
    people[role] = user;
  }
  const as = (role: MemberRole) => sessionCaller(db, people[role], organization.orgId);
  return { organization, apiKey, people, as };
}
