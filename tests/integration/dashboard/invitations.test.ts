import type { AddressInfo } from "node:net";
import bcrypt from "bcryptjs";
import { and, eq } from "drizzle-orm";
import { SMTPServer } from "smtp-server";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { invitations, memberships, users } from "@/db/schema";
import { appCodeOfError } from "@/server/errors";
import { INVITATIONS_PER_HOUR } from "@/server/services/members/invitation-quota";
import { hashInvitationToken } from "@/server/services/members/invitation-token";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles, createUser, sessionCaller } from "./helpers";

const db = useTestDb();

beforeEach(() => {
  // Password sign-in is on by default only in embedded mode; the suite runs with DATABASE_URL set.
  vi.stubEnv("AUTH_CREDENTIALS", "on");
});
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The invitee's side: no session at all. */
const anonymous = (now?: () => Date) => createCaller(createContext({ db, source: "dashboard", now }));

function tokenOf(inviteUrl: string | null): string {
  expect(inviteUrl).toMatch(/^http:\/\/.+\/invite\/[A-Za-z0-9_-]{43}$/);
  return new URL(inviteUrl!).pathname.split("/").pop()!;
}

async function codeOf(promise: Promise<unknown>): Promise<string> {
  return promise.then(
    () => "OK",
    (error: unknown) => appCodeOfError(error),
  );
}

async function membership(organizationId: string, email: string) {
  const [row] = await db
    .select({ role: memberships.role })
    .from(memberships)
    .innerJoin(users, eq(users.id, memberships.userId))
    .where(and(eq(memberships.organizationId, organizationId), eq(users.email, email)));
  return row ?? null;
}

const uniqueEmail = (label: string) => `${label}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@invitee.example`.toLowerCase();

describe("invitations", () => {
  it("an invitation creates no account and no membership; the invitee chooses the password and lands in the org with the role", async () => {
    const org = await createOrgWithRoles(db);
    const email = uniqueEmail("New.Person");
    const invited = await org.as("admin").invitations.create({ email: email.toUpperCase(), role: "support", name: "New Person" });
    expect(invited.delivery).toBe("link");
    expect(invited.invitation).toMatchObject({ email, role: "support", status: "pending", delivery: "link", invitedBy: org.people.admin.email });
    const token = tokenOf(invited.inviteUrl);
    // Nothing an inviter could know or use: no account, no password, no membership; the token is stored hashed only.
    expect(await db.select().from(users).where(eq(users.email, email))).toEqual([]);
    expect(await membership(org.organization.id, email)).toBeNull();
    const [row] = await db.select().from(invitations).where(eq(invitations.id, invited.invitation.invitationId));
    expect(row!.tokenHash).toBe(hashInvitationToken(token));
    expect(JSON.stringify(row)).not.toContain(token);
    expect(row!.expiresAt.getTime() - row!.createdAt.getTime()).toBe(7 * 24 * 3600 * 1000);

    // The invitation page reads it through the server caller, with no session (invitations.lookup). The link was shown
    // to the admin (no mail server): whether the address has an account is not told.
    expect(await anonymous().invitations.lookup({ token })).toMatchObject({
      status: "pending",
      email,
      role: "support",
      organizationName: org.organization.name,
      account: null,
    });
    const joined = await anonymous().invitations.acceptWithNewAccount({ token, name: "Nia Person", password: "my own secret 123" });
    expect(joined).toEqual({ orgId: org.organization.orgId, role: "support", email });
    const [user] = await db.select().from(users).where(eq(users.email, email));
    expect(user!.name).toBe("Nia Person");
    expect(await bcrypt.compare("my own secret 123", user!.passwordHash!)).toBe(true);
    expect(await membership(org.organization.id, email)).toEqual({ role: "support" });

    // Single use.
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token, password: "another password" }))).toBe("CONFLICT");
    expect((await anonymous().invitations.lookup({ token }))?.status).toBe("accepted");
    expect((await org.as("admin").invitations.list()).invitations.map((i) => i.email)).not.toContain(email);
  });

  it("regression: a second organization's invitation for an existing account grants nothing until that person accepts it themselves", async () => {
    const orgA = await createOrgWithRoles(db);
    const orgB = await createOrgWithRoles(db);
    const email = uniqueEmail("victim");
    // Org B's admin invites the address first and so holds B's link; they could even create the account with it.
    const fromB = await orgB.as("admin").invitations.create({ email, role: "member" });
    await anonymous().invitations.acceptWithNewAccount({ token: tokenOf(fromB.inviteUrl), password: "password known to B's admin" });
    const [account] = await db.select().from(users).where(eq(users.email, email));

    // Org A invites the same (now existing) address as admin: no membership yet, and no password is involved.
    const fromA = await orgA.as("admin").invitations.create({ email, role: "admin" });
    expect(fromA.inviteUrl).not.toBeNull();
    expect(await membership(orgA.organization.id, email)).toBeNull();
    expect(await codeOf(sessionCaller(db, { userId: account!.id, email }, orgA.organization.orgId).organizations.current())).toBe("FORBIDDEN");

    // B's admin, signed in as themselves, cannot use A's link; an account cannot be created over the existing one.
    const tokenA = tokenOf(fromA.inviteUrl);
    // A link an admin has seen does not tell whether the address has an account on this server.
    expect((await anonymous().invitations.lookup({ token: tokenA }))?.account).toBeNull();
    expect(await codeOf(sessionCaller(db, orgB.people.admin, null).invitations.accept({ token: tokenA }))).toBe("FORBIDDEN");
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token: tokenA, password: "takeover attempt" }))).toBe("CONFLICT");
    expect(await membership(orgA.organization.id, email)).toBeNull();
    expect(await membership(orgA.organization.id, orgB.people.admin.email)).toBeNull();

    // The person, signed in as that address, accepts with A's link.
    const accepted = await sessionCaller(db, { userId: account!.id, email }, null).invitations.accept({ token: tokenA });
    expect(accepted).toEqual({ orgId: orgA.organization.orgId, role: "admin" });
    expect(await membership(orgA.organization.id, email)).toEqual({ role: "admin" });
  });

  it("expired, revoked and resent links are refused with a clear message; resend issues a new link", async () => {
    const org = await createOrgWithRoles(db);
    const email = uniqueEmail("later");
    const start = Date.now();
    const first = await org.as("admin").invitations.create({ email, role: "member" });
    const firstToken = tokenOf(first.inviteUrl);

    const eightDaysLater = () => new Date(start + 8 * 24 * 3600 * 1000);
    const expired = await anonymous(eightDaysLater)
      .invitations.acceptWithNewAccount({ token: firstToken, password: "long enough" })
      .catch((error: unknown) => error);
    expect(appCodeOfError(expired)).toBe("CONFLICT");
    expect((expired as Error).message).toMatch(/expired/);
    expect((await anonymous(eightDaysLater).invitations.lookup({ token: firstToken }))?.status).toBe("expired");
    const later = sessionCaller(db, org.people.admin, org.organization.orgId, eightDaysLater);
    expect((await later.invitations.list()).invitations.find((i) => i.email === email)?.status).toBe("expired");

    const resent = await org.as("admin").invitations.resend({ invitationId: first.invitation.invitationId });
    const secondToken = tokenOf(resent.inviteUrl);
    expect(secondToken).not.toBe(firstToken);
    expect(await anonymous().invitations.lookup({ token: firstToken })).toBeNull();
    expect(await codeOf(anonymous().invitations.lookup({ token: "not a token" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token: firstToken, password: "long enough" }))).toBe("NOT_FOUND");

    await org.as("admin").invitations.revoke({ invitationId: first.invitation.invitationId });
    const revoked = await anonymous()
      .invitations.acceptWithNewAccount({ token: secondToken, password: "long enough" })
      .catch((error: unknown) => error);
    expect(appCodeOfError(revoked)).toBe("CONFLICT");
    expect((revoked as Error).message).toMatch(/revoked/);
    expect(await codeOf(org.as("admin").invitations.revoke({ invitationId: first.invitation.invitationId }))).toBe("NOT_FOUND");
    expect(await db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it("refuses duplicates, members, bad input and other organizations", async () => {
    const org = await createOrgWithRoles(db);
    const other = await createOrgWithRoles(db);
    const email = uniqueEmail("dup");
    const invited = await org.as("admin").invitations.create({ email, role: "member" });
    expect(await codeOf(org.as("admin").invitations.create({ email, role: "admin" }))).toBe("CONFLICT");
    expect(await codeOf(org.as("admin").invitations.create({ email: org.people.support.email, role: "admin" }))).toBe("CONFLICT");
    // The same address may be invited by another organization independently.
    expect((await other.as("admin").invitations.create({ email, role: "member" })).invitation.email).toBe(email);

    // Another organization's admin can neither see, resend nor revoke it.
    expect((await other.as("admin").invitations.list()).invitations.map((i) => i.invitationId)).not.toContain(invited.invitation.invitationId);
    expect(await codeOf(other.as("admin").invitations.resend({ invitationId: invited.invitation.invitationId }))).toBe("NOT_FOUND");
    expect(await codeOf(other.as("admin").invitations.revoke({ invitationId: invited.invitation.invitationId }))).toBe("NOT_FOUND");

    const admin = org.as("admin");
    for (const input of [
      { email: "not an email", role: "member" as const },
      { email: `${"a".repeat(320)}@x.example`, role: "member" as const },
      { email: uniqueEmail("name"), role: "member" as const, name: "x".repeat(201) },
      { email: uniqueEmail("nul"), role: "member" as const, name: "bad\u0000name" },
      { email: uniqueEmail("role"), role: "owner" as never },
    ]) {
      expect(await codeOf(admin.invitations.create(input)), JSON.stringify(input).slice(0, 80)).toBe("INVALID_REQUEST");
    }
    const token = tokenOf(invited.inviteUrl);
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token, password: "short" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token, password: "x".repeat(201) }))).toBe("INVALID_REQUEST");
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token: "x".repeat(201), password: "long enough" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token: "../../etc/passwd?x", password: "long enough" }))).toBe("INVALID_REQUEST");
    expect(await codeOf(anonymous().invitations.accept({ token }))).toBe("UNAUTHORIZED");
    expect(await codeOf(admin.invitations.resend({ invitationId: "x".repeat(101) }))).toBe("INVALID_REQUEST");
  });

  it(`rate-limits links per organization (${INVITATIONS_PER_HOUR} an hour)`, async () => {
    const org = await createOrgWithRoles(db);
    const admin = org.as("admin");
    for (let i = 0; i < INVITATIONS_PER_HOUR; i++) await admin.invitations.create({ email: uniqueEmail(`bulk${i}`), role: "member" });
    const refused = await admin.invitations.create({ email: uniqueEmail("one-too-many"), role: "member" }).catch((error: unknown) => error);
    expect(appCodeOfError(refused)).toBe("RATE_LIMITED");
    expect((refused as Error).message).toMatch(/try again in \d+ minutes/);
    // Other organizations are not affected.
    const other = await createOrgWithRoles(db);
    expect((await other.as("admin").invitations.create({ email: uniqueEmail("other"), role: "member" })).delivery).toBe("link");
  });

  it("without password sign-in (SSO only) no account is created through a link", async () => {
    const org = await createOrgWithRoles(db);
    const invited = await org.as("admin").invitations.create({ email: uniqueEmail("sso"), role: "member" });
    vi.stubEnv("AUTH_CREDENTIALS", "off");
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token: tokenOf(invited.inviteUrl), password: "long enough" }))).toBe("FORBIDDEN");
    expect(await db.select().from(users).where(eq(users.email, invited.invitation.email))).toEqual([]);
  });

  it("an operator's address cannot get its account through a link an admin has seen", async () => {
    const org = await createOrgWithRoles(db);
    const email = uniqueEmail("ops");
    vi.stubEnv("OPERATOR_EMAILS", `someone@else.example, ${email.toUpperCase()}`);
    const invited = await org.as("admin").invitations.create({ email, role: "member" });
    expect(await codeOf(anonymous().invitations.acceptWithNewAccount({ token: tokenOf(invited.inviteUrl), password: "long enough" }))).toBe("FORBIDDEN");
    expect(await db.select().from(users).where(eq(users.email, email))).toEqual([]);
  });

  it("with SMTP_URL and MAIL_FROM the link is emailed (to a local SMTP server) and never shown to the admin", async () => {
    const messages: Array<{ to: string[]; from: string; raw: string }> = [];
    const smtp = new SMTPServer({
      authOptional: true,
      disabledCommands: ["STARTTLS", "AUTH"],
      logger: false,
      onData(stream, session, callback) {
        let raw = "";
        stream.setEncoding("utf8");
        stream.on("data", (chunk: string) => (raw += chunk));
        stream.on("end", () => {
          messages.push({ to: session.envelope.rcptTo.map((r) => r.address), from: session.envelope.mailFrom ? session.envelope.mailFrom.address : "", raw });
          callback();
        });
      },
    });
    await new Promise<void>((resolve) => smtp.listen(0, "127.0.0.1", resolve));
    try {
      const port = (smtp.server.address() as AddressInfo).port;
      vi.stubEnv("SMTP_URL", `smtp://127.0.0.1:${port}`);
      vi.stubEnv("MAIL_FROM", "Console <no-reply@console.example>");
      const org = await createOrgWithRoles(db);
      const email = uniqueEmail("mailed");
      const invited = await org.as("admin").invitations.create({ email, role: "member" });
      expect(invited).toMatchObject({ delivery: "email", inviteUrl: null, invitation: { delivery: "email" } });
      expect(messages).toHaveLength(1);
      expect(messages[0]!.to).toEqual([email]);
      expect(messages[0]!.from).toBe("no-reply@console.example");
      // Quoted-printable soft line breaks and escapes undone.
      const body = messages[0]!.raw.replace(/=\r?\n/g, "").replace(/=([0-9A-F]{2})/g, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      expect(body).toContain(org.organization.name);
      const token = /\/invite\/([A-Za-z0-9_-]{43})/.exec(body)?.[1];
      expect(token).toBeDefined();
      // An emailed link reached the invitee's mailbox only: the page may tell them whether they have an account.
      expect((await anonymous().invitations.lookup({ token: token! }))?.account).toEqual({ exists: false, hasPassword: false });
      expect((await anonymous().invitations.acceptWithNewAccount({ token: token!, password: "from my inbox" })).orgId).toBe(org.organization.orgId);

      // A mail server that refuses: the invitation stays pending for a resend, the link is not revealed.
      vi.stubEnv("SMTP_URL", "smtp://127.0.0.1:1");
      const failed = await org.as("admin").invitations.create({ email: uniqueEmail("bounced"), role: "member" });
      expect(failed).toMatchObject({ delivery: "email-failed", inviteUrl: null });
      expect((await org.as("admin").invitations.list()).invitations.map((i) => i.email)).toContain(failed.invitation.email);
    } finally {
      await new Promise<void>((resolve) => smtp.close(() => resolve()));
    }
  });

  it("a signed-in person whose account is not the invited address gets nothing", async () => {
    const org = await createOrgWithRoles(db);
    const stranger = await createUser(db);
    const invited = await org.as("admin").invitations.create({ email: uniqueEmail("intended"), role: "admin" });
    const refused = await sessionCaller(db, stranger, null)
      .invitations.accept({ token: tokenOf(invited.inviteUrl) })
      .catch((error: unknown) => error);
    expect(appCodeOfError(refused)).toBe("FORBIDDEN");
    expect((refused as Error).message).toContain(invited.invitation.email);
    expect(await membership(org.organization.id, stranger.email)).toBeNull();
  });
});
