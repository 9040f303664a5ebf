import { beforeEach, describe, expect, it, vi } from "vitest";
import { memberships } from "@/db/schema";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { signInWithCredentials, signOut, trpcWithCookie, useNextAuthEnv } from "../../helpers/next-auth";
import { createUser, sessionCaller } from "../dashboard/helpers";
import { createPasswordUser } from "./helpers";

const db = useTestDb();

beforeEach(() => {
  useNextAuthEnv();
  return () => vi.unstubAllEnvs();
});

async function signedIn(email: string, password: string) {
  const attempt = await signInWithCredentials({ email, password, ip: `198.51.100.${Math.floor(Math.random() * 200) + 1}` });
  expect(attempt.error).toBeNull();
  expect(attempt.sessionCookie).toMatch(/next-auth\.session-token=/);
  return attempt.sessionCookie!;
}

/** Whether `/api/trpc` accepts the cookie as a session (organizations.listMine needs one). */
async function statusWith(cookie: string) {
  return (await trpcWithCookie("organizations.listMine", cookie)).status;
}

describe("sessions end on sign-out, password change and removal", () => {
  it("sign-out: the old session cookie is refused afterwards, on every device", async () => {
    const { organization } = await createTestOrganization(db);
    const user = await createPasswordUser(db, { password: "first password", organizationId: organization.id });
    const laptop = await signedIn(user.email, "first password");
    const phone = await signedIn(user.email, "first password");
    expect(await statusWith(laptop)).toBe(200);
    expect(await statusWith(phone)).toBe(200);

    await signOut(laptop);
    expect(await statusWith(laptop)).toBe(401);
    expect(await statusWith(phone)).toBe(401);
    // Signing in again gives a working session; the old cookie stays dead.
    const again = await signedIn(user.email, "first password");
    expect(await statusWith(again)).toBe(200);
    expect(await statusWith(laptop)).toBe(401);
  });

  it("password change: sessions from before are refused, the new password works, the old one does not", async () => {
    const { organization } = await createTestOrganization(db);
    const user = await createPasswordUser(db, { password: "old password", organizationId: organization.id });
    const other = await signedIn(user.email, "old password");
    const current = await signedIn(user.email, "old password");

    const wrong = await trpcWithCookie("account.changePassword", current, { method: "POST", input: { currentPassword: "not it", newPassword: "new password 1" } });
    expect(wrong.status).toBe(400);
    expect(await statusWith(current)).toBe(200);
    const tooShort = await trpcWithCookie("account.changePassword", current, { method: "POST", input: { currentPassword: "old password", newPassword: "short" } });
    expect(tooShort.status).toBe(400);

    const changed = await trpcWithCookie("account.changePassword", current, { method: "POST", input: { currentPassword: "old password", newPassword: "new password 1" } });
    expect(changed.status).toBe(200);
    expect(await statusWith(current)).toBe(401);
    expect(await statusWith(other)).toBe(401);
    expect((await signInWithCredentials({ email: user.email, password: "old password" })).error).toBe("CredentialsSignin");
    expect(await statusWith(await signedIn(user.email, "new password 1"))).toBe(200);
  });

  it("removal from an organization: the removed person's existing sessions are refused", async () => {
    const { organization } = await createTestOrganization(db);
    const admin = await createUser(db);
    await db.insert(memberships).values({ organizationId: organization.id, userId: admin.userId, role: "admin" });
    const user = await createPasswordUser(db, { password: "member password", organizationId: organization.id });
    const cookie = await signedIn(user.email, "member password");
    expect((await trpcWithCookie("members.list", cookie, { orgId: organization.orgId })).status).toBe(200);

    await sessionCaller(db, admin, organization.orgId).members.remove({ userId: user.userId });
    expect(await statusWith(cookie)).toBe(401);
    expect((await trpcWithCookie("members.list", cookie, { orgId: organization.orgId })).status).toBe(401);
  });

  it("a session token without a session version (issued before this change) is refused", async () => {
    const { encode } = await import("next-auth/jwt");
    const { organization } = await createTestOrganization(db);
    const user = await createPasswordUser(db, { password: "whatever 123", organizationId: organization.id });
    const legacy = await encode({ token: { uid: user.userId, email: user.email, activeOrgId: null }, secret: process.env.NEXTAUTH_SECRET! });
    expect(await statusWith(`next-auth.session-token=${legacy}`)).toBe(401);
    const current = await encode({ token: { uid: user.userId, sv: 1, email: user.email, activeOrgId: null }, secret: process.env.NEXTAUTH_SECRET! });
    expect(await statusWith(`next-auth.session-token=${current}`)).toBe(200);
  });
});
