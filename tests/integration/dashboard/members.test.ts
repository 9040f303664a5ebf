import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { memberships, users } from "@/db/schema";
import { appCodeOfError } from "@/server/errors";
import { provisionOidcUser } from "@/server/services/members/provision-oidc-user";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles, sessionCaller } from "./helpers";

const db = useTestDb();

describe("members", () => {
  it("never removes or demotes the last admin, also under concurrent changes", async () => {
    const { as, people, organization } = await createOrgWithRoles(db);
    expect(appCodeOfError(await as("admin").members.remove({ userId: people.admin.userId }).catch((e: unknown) => e))).toBe("CONFLICT");
    expect(appCodeOfError(await as("admin").members.changeRole({ userId: people.admin.userId, role: "member" }).catch((e: unknown) => e))).toBe(
      "CONFLICT",
    );
    // Two admins demoting each other at the same time: one must fail.
    await as("admin").members.changeRole({ userId: people.support.userId, role: "admin" });
    const a = sessionCaller(db, people.admin, organization.orgId);
    const b = sessionCaller(db, people.support, organization.orgId);
    const results = await Promise.allSettled([
      a.members.changeRole({ userId: people.support.userId, role: "member" }),
      b.members.changeRole({ userId: people.admin.userId, role: "member" }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const admins = await db.select().from(memberships).where(eq(memberships.organizationId, organization.id));
    expect(admins.filter((m) => m.role === "admin")).toHaveLength(1);
  });

  it("lists the organizations of a person for the switcher, with their role in each", async () => {
    const first = await createOrgWithRoles(db);
    const second = await createOrgWithRoles(db);
    await db.insert(memberships).values({ organizationId: second.organization.id, userId: first.people.support.userId, role: "member" });
    const mine = await first.as("support").organizations.listMine();
    expect(mine.organizations.map((o) => [o.orgId, o.role])).toEqual([
      [first.organization.orgId, "support"],
      [second.organization.orgId, "member"],
    ]);
    const current = await sessionCaller(db, first.people.support, second.organization.orgId).organizations.current();
    expect(current).toMatchObject({ orgId: second.organization.orgId, role: "member" });
  });
});

describe("OIDC provisioning", () => {
  it("creates the user and the membership from the organization claim, with the claimed role only the first time", async () => {
    const { organization } = await createTestOrganization(db);
    const email = `sso-${Date.now()}@idp.example`;
    const first = await provisionOidcUser(db, { email, name: "Sso Person", orgId: organization.orgId, roleClaim: "org:admin" });
    expect(first).toMatchObject({ email, orgId: organization.orgId, role: "admin" });
    await db.update(memberships).set({ role: "support" }).where(eq(memberships.userId, first!.userId));
    const again = await provisionOidcUser(db, { email: email.toUpperCase(), orgId: organization.orgId, roleClaim: "admin" });
    expect(again).toMatchObject({ userId: first!.userId, role: "support" });
    const [user] = await db.select().from(users).where(eq(users.id, first!.userId));
    expect(user!.passwordHash).toBeNull();
  });

  it("refuses an organization claim that names no organization, and defaults unknown role claims to member", async () => {
    expect(await provisionOidcUser(db, { email: "x@idp.example", orgId: "org_nope_nope" })).toBeNull();
    const { organization } = await createTestOrganization(db);
    const result = await provisionOidcUser(db, { email: `r-${Date.now()}@idp.example`, orgId: organization.orgId, roleClaim: "superuser" });
    expect(result?.role).toBe("member");
  });
});
