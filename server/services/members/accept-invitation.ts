import bcrypt from "bcryptjs";
import { eq, sql } from "drizzle-orm";
import type { DbOrTx, Tx } from "@/db";
import { invitations, memberships, organizations, users, type MemberRole } from "@/db/schema";
import { isOperatorEmail } from "@/server/config/settings";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import { hashInvitationToken } from "./invitation-token";

export type InvitationStatus = "pending" | "expired" | "accepted" | "revoked";

/** What the holder of a link may see about it, for the accept page. Null when no invitation has this token. */
export type InvitationLookup = {
  status: InvitationStatus;
  organizationName: string;
  orgId: string;
  email: string;
  role: MemberRole;
  expiresAt: string;
  /**
   * Whether an account exists for the invited address, and whether it has a password (else: single sign-on only).
   * Null when the link was shown to the inviting admin (no mail server): its holder need not be the invitee, and an
   * admin could otherwise invite any address to learn whether it has an account on this server.
   */
  account: { exists: boolean; hasPassword: boolean } | null;
};

function statusOf(row: typeof invitations.$inferSelect, now: Date): InvitationStatus {
  if (row.acceptedAt) return "accepted";
  if (row.revokedAt) return "revoked";
  return row.expiresAt > now ? "pending" : "expired";
}

export async function lookupInvitation(db: DbOrTx, params: { token: string; now: Date }): Promise<InvitationLookup | null> {
  const [row] = await db
    .select({ invitation: invitations, organizationName: organizations.name, orgId: organizations.orgId })
    .from(invitations)
    .innerJoin(organizations, eq(organizations.id, invitations.organizationId))
    .where(eq(invitations.tokenHash, hashInvitationToken(params.token)))
    .limit(1);
  if (!row) return null;
  const shownToAdmin = row.invitation.channel === "link";
  const [account] = shownToAdmin
    ? []
    : await db
    .select({ passwordHash: users.passwordHash })
    .from(users)
    .where(eq(sql`lower(${users.email})`, row.invitation.email))
    .limit(1);
  return {
    status: statusOf(row.invitation, params.now),
    organizationName: row.organizationName,
    orgId: row.orgId,
    email: row.invitation.email,
    role: row.invitation.role,
    expiresAt: row.invitation.expiresAt.toISOString(),
    account: shownToAdmin ? null : { exists: !!account, hasPassword: !!account?.passwordHash },
  };
}

const UNUSABLE: Record<Exclude<InvitationStatus, "pending">, string> = {
  expired: "This invitation has expired. Ask an admin of the organization to send a new one.",
  accepted: "This invitation has already been used.",
  revoked: "This invitation was revoked by an admin of the organization.",
};

/**
 * The invitation behind a token, when it is pending; NOT_FOUND for an unknown token, CONFLICT with the reason otherwise.
 * Inside the acceptance's transaction the row is locked (`lock`), so two acceptances of one link cannot both pass.
 */
async function findPendingInvitation(db: DbOrTx, token: string, now: Date, lock = false) {
  const query = db.select().from(invitations).where(eq(invitations.tokenHash, hashInvitationToken(token)));
  const [row] = lock ? await query.for("update") : await query;
  if (!row) throw new AppError("NOT_FOUND", "This invitation link is not valid. Check that you copied all of it.");
  const status = statusOf(row, now);
  if (status !== "pending") throw new AppError("CONFLICT", UNUSABLE[status]);
  return row;
}

async function join(tx: Tx, invitation: typeof invitations.$inferSelect, userId: string, now: Date) {
  // Already a member (e.g. through SSO meanwhile): the existing role stays.
  await tx.insert(memberships).values({ organizationId: invitation.organizationId, userId, role: invitation.role }).onConflictDoNothing();
  await tx.update(invitations).set({ acceptedAt: now, acceptedByUserId: userId }).where(eq(invitations.id, invitation.id));
  const [organization] = await tx.select({ orgId: organizations.orgId }).from(organizations).where(eq(organizations.id, invitation.organizationId));
  return { orgId: organization!.orgId, role: invitation.role };
}

export type AcceptInvitationParams = { token: string; userId: string; now: Date };

/**
 * A signed-in person accepts: only when the invitation was addressed to their own account's email (FORBIDDEN otherwise),
 * so a link that reached someone else grants them nothing.
 */
export async function acceptInvitation(db: DbOrTx, params: AcceptInvitationParams) {
  return db.transaction(async (tx) => {
    const invitation = await findPendingInvitation(tx, params.token, params.now, true);
    const [user] = await tx.select({ email: users.email }).from(users).where(eq(users.id, params.userId));
    if (!user || user.email.toLowerCase() !== invitation.email) {
      throw new AppError(
        "FORBIDDEN",
        `This invitation is for ${invitation.email}, and you are signed in as ${user?.email ?? "someone else"}. Sign out and sign in as ${invitation.email}.`,
      );
    }
    return join(tx, invitation, params.userId, params.now);
  });
}

export type AcceptInvitationWithNewAccountParams = { token: string; name: string; password: string; now: Date };

/**
 * The invitee has no account yet: creates it with the password they chose (never one the inviter knows) and joins.
 * CONFLICT when an account for the address exists (sign in to accept instead). An operator's address (OPERATOR_EMAILS)
 * is refused when the link was shown to the inviting admin (no SMTP): whoever holds such a link could otherwise become
 * an operator.
 */
export async function acceptInvitationWithNewAccount(db: DbOrTx, params: AcceptInvitationWithNewAccountParams) {
  // A cheap check first: no bcrypt work for an unknown or unusable link (this procedure needs no session).
  await findPendingInvitation(db, params.token, params.now);
  const passwordHash = await bcrypt.hash(params.password, 10);
  return db.transaction(async (tx) => {
    const invitation = await findPendingInvitation(tx, params.token, params.now, true);
    if (invitation.channel === "link" && isOperatorEmail(invitation.email)) {
      throw new AppError(
        "FORBIDDEN",
        "This address belongs to an operator of this server: its account cannot be created through a link an admin has seen. Use single sign-on, or an emailed invitation.",
      );
    }
    const accountExists = new AppError("CONFLICT", `An account for ${invitation.email} already exists: sign in to accept the invitation.`);
    const [existing] = await tx.select({ id: users.id }).from(users).where(eq(sql`lower(${users.email})`, invitation.email)).limit(1);
    if (existing) throw accountExists;
    const userId = newId("user");
    const [created] = await tx
      .insert(users)
      .values({ id: userId, email: invitation.email, name: params.name.trim() || invitation.name, passwordHash })
      .onConflictDoNothing({ target: users.email })
      .returning({ id: users.id });
    if (!created) throw accountExists;
    const joined = await join(tx, invitation, userId, params.now);
    return { ...joined, email: invitation.email };
  });
}
