import { and, desc, eq, isNull, lte, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { invitations, memberships, organizations, users, type MemberRole } from "@/db/schema";
import { mailSettings } from "@/server/config/settings";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import { deliverInvitation, type InvitationDelivery } from "./deliver-invitation";
import { consumeInvitationQuota } from "./invitation-quota";
import { INVITATION_TTL_MS, invitationUrl, newInvitationToken } from "./invitation-token";

/** An open invitation as admins see it (never the token). */
export type InvitationSummary = {
  invitationId: string;
  email: string;
  name: string;
  role: MemberRole;
  status: "pending" | "expired";
  delivery: "email" | "link";
  invitedBy: string | null;
  createdAt: string;
  sentAt: string;
  expiresAt: string;
};

type InvitationRow = typeof invitations.$inferSelect;

function summarize(row: InvitationRow, invitedBy: string | null, now: Date): InvitationSummary {
  return {
    invitationId: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.expiresAt > now ? "pending" : "expired",
    delivery: row.channel,
    invitedBy,
    createdAt: row.createdAt.toISOString(),
    sentAt: row.sentAt.toISOString(),
    expiresAt: row.expiresAt.toISOString(),
  };
}

async function findInviter(db: DbOrTx, userId: string | null) {
  if (!userId) return null;
  const [row] = await db.select({ email: users.email, name: users.name }).from(users).where(eq(users.id, userId)).limit(1);
  return row ?? null;
}

async function send(db: DbOrTx, row: InvitationRow, token: string): Promise<InvitationDelivery> {
  const [organization] = await db.select({ name: organizations.name }).from(organizations).where(eq(organizations.id, row.organizationId));
  const inviter = await findInviter(db, row.invitedByUserId);
  return deliverInvitation(
    {
      to: row.email,
      organizationName: organization!.name,
      role: row.role,
      invitedBy: inviter ? inviter.name || inviter.email : null,
      url: invitationUrl(token),
      expiresAt: row.expiresAt,
    },
    row.channel,
  );
}

export type InviteMemberParams = { organizationId: string; invitedByUserId: string; email: string; role: MemberRole; name?: string; now: Date };

/**
 * Invites an address into the organization with a role. Nobody becomes a member here: the invitee accepts through the
 * link (signed in as that address, or creating the account for it). Raises CONFLICT when the address is already a
 * member or has an open, unexpired invitation (resend or revoke that one), RATE_LIMITED past the hourly quota.
 */
export async function inviteMember(db: DbOrTx, params: InviteMemberParams) {
  const email = params.email.trim().toLowerCase();
  await consumeInvitationQuota(params.organizationId);
  const { token, tokenHash } = newInvitationToken();
  const row = await db.transaction(async (tx) => {
    const member = await tx
      .select({ userId: memberships.userId })
      .from(memberships)
      .innerJoin(users, eq(users.id, memberships.userId))
      .where(and(eq(memberships.organizationId, params.organizationId), eq(sql`lower(${users.email})`, email)))
      .limit(1);
    if (member[0]) throw new AppError("CONFLICT", `${email} is already a member of this organization.`);
    // An expired invitation no longer blocks a new one.
    await tx
      .update(invitations)
      .set({ revokedAt: params.now })
      .where(
        and(
          eq(invitations.organizationId, params.organizationId),
          eq(invitations.email, email),
          isNull(invitations.acceptedAt),
          isNull(invitations.revokedAt),
          lte(invitations.expiresAt, params.now),
        ),
      );
    const [inserted] = await tx
      .insert(invitations)
      .values({
        id: newId("invite"),
        organizationId: params.organizationId,
        email,
        name: params.name?.trim() ?? "",
        role: params.role,
        tokenHash,
        channel: mailSettings() ? "email" : "link",
        invitedByUserId: params.invitedByUserId,
        createdAt: params.now,
        sentAt: params.now,
        expiresAt: new Date(params.now.getTime() + INVITATION_TTL_MS),
      })
      .onConflictDoNothing()
      .returning();
    if (!inserted) throw new AppError("CONFLICT", `${email} already has a pending invitation: resend or revoke it.`);
    return inserted;
  });
  // Sent after commit: a slow or failing mail server never holds the transaction.
  const delivery = await send(db, row, token);
  const inviter = await findInviter(db, row.invitedByUserId);
  return { invitation: summarize(row, inviter?.email ?? null, params.now), ...delivery };
}

export type InvitationRef = { organizationId: string; invitationId: string; now: Date };

/** A new link (the old one stops working) valid for another 7 days. NOT_FOUND unless the invitation is open in this organization. */
export async function resendInvitation(db: DbOrTx, params: InvitationRef) {
  await consumeInvitationQuota(params.organizationId);
  const { token, tokenHash } = newInvitationToken();
  const [row] = await db
    .update(invitations)
    .set({
      tokenHash,
      channel: mailSettings() ? "email" : "link",
      sentAt: params.now,
      expiresAt: new Date(params.now.getTime() + INVITATION_TTL_MS),
    })
    .where(openInvitation(params))
    .returning();
  if (!row) throw new AppError("NOT_FOUND", "No open invitation with this id in this organization.");
  const delivery = await send(db, row, token);
  const inviter = await findInviter(db, row.invitedByUserId);
  return { invitation: summarize(row, inviter?.email ?? null, params.now), ...delivery };
}

/** NOT_FOUND unless the invitation is open in this organization. */
export async function revokeInvitation(db: DbOrTx, params: InvitationRef) {
  const [row] = await db.update(invitations).set({ revokedAt: params.now }).where(openInvitation(params)).returning({ id: invitations.id });
  if (!row) throw new AppError("NOT_FOUND", "No open invitation with this id in this organization.");
  return { invitationId: row.id, revoked: true };
}

function openInvitation(params: InvitationRef) {
  return and(
    eq(invitations.id, params.invitationId),
    eq(invitations.organizationId, params.organizationId),
    isNull(invitations.acceptedAt),
    isNull(invitations.revokedAt),
  );
}

/** Open invitations of the organization (pending and expired), newest first. */
export async function listInvitations(db: DbOrTx, params: { organizationId: string; now: Date }) {
  const rows = await db
    .select({ invitation: invitations, invitedBy: users.email })
    .from(invitations)
    .leftJoin(users, eq(users.id, invitations.invitedByUserId))
    .where(and(eq(invitations.organizationId, params.organizationId), isNull(invitations.acceptedAt), isNull(invitations.revokedAt)))
    .orderBy(desc(invitations.createdAt))
    .limit(500);
  return { invitations: rows.map((row) => summarize(row.invitation, row.invitedBy, params.now)) };
}
