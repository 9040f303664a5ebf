import bcrypt from "bcryptjs";
import { eq } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { memberships, users } from "@/db/schema";
import { appCodeOfError } from "@/server/errors";
import { provisionOidcUser } from "@/server/services/members/provision-oidc-user";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles, sessionCaller } from "./helpers";

const db = useTestDb();

describe("members", () => {
  it("adds a new person with a one-time initial password that signs in, and refuses a duplicate", async () => {
    const { as } = await createOrgWithRoles(db);
    const email = `New.Person.${Date.now()}@Test.example`;
    vi.stubEnv("AUTH_CREDENTIALS", "on");
    const added = await as("admin").members.add({ email, role: "support" });
    expect(added.email).toBe(email.toLowerCase());
    const [user] = await db.select().from(users).where(eq(users.id, added.userId));
    expect(added.initialPassword).toEqual(expect.any(String));
    expect(await bcrypt.compare(added.initialPassword!, user!.passwordHash!)).toBe(true);

    // With password sign-in off (SSO only), a new person gets no password at all.
    vi.stubEnv("AUTH_CREDENTIALS", "off");
    const ssoOnly = await as("admin").members.add({ email: `sso-only-${Date.now()}@test.example`, role: "member" });
    expect(ssoOnly.initialPassword).toBeNull();
    const [ssoUser] = await db.select().from(users).where(eq(users.id, ssoOnly.userId));
    expect(ssoUser!.passwordHash).toBeNull();
    vi.unstubAllEnvs();
    const again = await as("admin").members.add({ email, role: "member" }).catch((e: unknown) => e);
    expect(appCodeOfError(again)).toBe("CONFLICT");
    const listed = (await as("admin").members.list()).members.find((m) => m.userId === added.userId);
    expect(listed?.role).toBe("support");
  });

  it("an existing account is added without a new password", async () => {
    const first = await createOrgWithRoles(db);
    const second = await createOrgWithRoles(db);
    const added = await second.as("admin").members.add({ email: first.people.member.email, role: "admin" });
    expect(added.userId).toBe(first.people.member.userId);
    expect(added.initialPassword).toBeNull();
  });

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
    await second.as("admin").members.add({ email: first.people.support.email, role: "member" });
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
