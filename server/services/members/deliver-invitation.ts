import nodemailer, { type Transporter } from "nodemailer";
import { mailSettings } from "@/server/config/settings";
import type { MemberRole } from "@/db/schema";
import { getLogger } from "@/server/observability/logger";
import { processSingleton } from "@/server/runtime/process-singleton";

export type InvitationMessage = {
  to: string;
  organizationName: string;
  role: MemberRole;
  invitedBy: string | null;
  url: string;
  expiresAt: Date;
};

/**
 * "email": sent through SMTP (the inviting admin never sees the link); "email-failed": SMTP refused it (the invitation
 * stays pending, Resend issues a new link); "link": no SMTP configured, so the link is printed in the server log and
 * returned once to the inviting admin.
 */
export type InvitationDelivery = { delivery: "email" | "email-failed"; inviteUrl: null } | { delivery: "link"; inviteUrl: string };

/** Process-wide (server/runtime/process-singleton.ts): the transporter of the current SMTP_URL. */
const holder = () => processSingleton("invitationMailer", () => ({ current: undefined as { url: string; transporter: Transporter } | undefined }));

function mailer(smtpUrl: string): Transporter {
  const invitations = holder();
  if (invitations.current?.url !== smtpUrl) {
    invitations.current = { url: smtpUrl, transporter: nodemailer.createTransport(smtpUrl) };
  }
  return invitations.current.transporter;
}

export function invitationText(message: InvitationMessage): string {
  return [
    `${message.invitedBy ?? "An admin"} invited you to join ${message.organizationName} as ${message.role} on the Outbound AI Calling console.`,
    "",
    `Accept the invitation: ${message.url}`,
    "",
    `The link works once and expires on ${message.expiresAt.toUTCString()}. If you did not expect it, ignore this email.`,
  ].join("\n");
}

/** Hands the invitation link to the invitee (called after the invitation is committed). */
export async function deliverInvitation(message: InvitationMessage, channel: "email" | "link"): Promise<InvitationDelivery> {
  const settings = mailSettings();
  if (channel === "link" || !settings) {
    // Without SMTP the link is given to the inviting admin and written here, once (docs/security.md).
    getLogger("invitations").info(
      { invitee: message.to, organization: message.organizationName, role: message.role, expiresAt: message.expiresAt.toISOString(), url: message.url },
      "invitation link (not emailed)",
    );
    return { delivery: "link", inviteUrl: message.url };
  }
  try {
    await mailer(settings.smtpUrl).sendMail({
      from: settings.from,
      to: message.to,
      subject: `You are invited to join ${message.organizationName}`,
      text: invitationText(message),
    });
    getLogger("invitations").info({ invitee: message.to, organization: message.organizationName }, "invitation emailed");
    return { delivery: "email", inviteUrl: null };
  } catch (error) {
    // The link is never logged here: with SMTP configured, only the invitee may see it.
    getLogger("invitations").error({ invitee: message.to, err: error }, "could not email the invitation");
    return { delivery: "email-failed", inviteUrl: null };
  }
}
