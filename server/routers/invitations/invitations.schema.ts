import { z } from "zod";
import { PASSWORD_MAX_LENGTH, PASSWORD_MIN_LENGTH } from "@/server/auth/password-sign-in";
import { ZMemberRoleSchema } from "../members/members.schema";

const noControlCharacters = (value: string) => ![...value].some((char) => char.charCodeAt(0) < 0x20 || char.charCodeAt(0) === 0x7f);

export const ZPersonNameSchema = z.string().trim().max(200).refine(noControlCharacters, "must not contain control characters");

export const ZPasswordSchema = z
  .string()
  .min(PASSWORD_MIN_LENGTH, `must be at least ${PASSWORD_MIN_LENGTH} characters`)
  .max(PASSWORD_MAX_LENGTH, `must be at most ${PASSWORD_MAX_LENGTH} characters`);

export const ZInvitationTokenSchema = z
  .string()
  .min(20)
  .max(200)
  .regex(/^[A-Za-z0-9_-]+$/, "is not an invitation token")
  .describe("The token of an invitation link (`/invite/<token>`).");

export const ZInvitationSchema = z.object({
  invitationId: z.string(),
  email: z.string(),
  name: z.string(),
  role: ZMemberRoleSchema,
  status: z.enum(["pending", "expired"]).describe("Open invitations only: accepted and revoked ones are not listed."),
  delivery: z.enum(["email", "link"]).describe("How the current link was handed out: emailed, or shown to the inviting admin."),
  invitedBy: z.string().nullable(),
  createdAt: z.string(),
  sentAt: z.string().describe("When the current link was issued (invite or resend)."),
  expiresAt: z.string(),
});

export const ZInvitationDeliverySchema = z.object({
  invitation: ZInvitationSchema,
  delivery: z.enum(["email", "email-failed", "link"]),
  inviteUrl: z
    .string()
    .nullable()
    .describe("Only when delivery is `link` (no SMTP configured): shown once to the inviting admin, never stored."),
});

export const ZCreateInvitationRequestSchema = z.object({
  email: z.email("Enter a valid email address.").max(320),
  role: ZMemberRoleSchema,
  name: ZPersonNameSchema.optional(),
});
export const ZCreateInvitationResponseSchema = ZInvitationDeliverySchema;

export const ZListInvitationsRequestSchema = z.object({}).optional();
export const ZListInvitationsResponseSchema = z.object({ invitations: z.array(ZInvitationSchema) });

export const ZInvitationRefRequestSchema = z.object({ invitationId: z.string().min(1).max(100) });
export const ZResendInvitationResponseSchema = ZInvitationDeliverySchema;
export const ZRevokeInvitationResponseSchema = z.object({ invitationId: z.string(), revoked: z.boolean() });

export const ZAcceptInvitationRequestSchema = z.object({ token: ZInvitationTokenSchema });
export const ZAcceptInvitationResponseSchema = z.object({ orgId: z.string(), role: ZMemberRoleSchema });

export const ZAcceptInvitationWithNewAccountRequestSchema = z.object({
  token: ZInvitationTokenSchema,
  name: ZPersonNameSchema.default(""),
  password: ZPasswordSchema,
});
export const ZAcceptInvitationWithNewAccountResponseSchema = z.object({ orgId: z.string(), role: ZMemberRoleSchema, email: z.string() });

export const ZInvitationStatusSchema = z.enum(["pending", "expired", "accepted", "revoked"]);
export type TInvitationStatus = z.infer<typeof ZInvitationStatusSchema>;

export const ZLookupInvitationRequestSchema = z.object({ token: ZInvitationTokenSchema });
/** What the invitation page shows before anyone signs in; null for an unknown token. */
export const ZLookupInvitationResponseSchema = z
  .object({
    status: ZInvitationStatusSchema,
    organizationName: z.string(),
    orgId: z.string(),
    email: z.string(),
    role: ZMemberRoleSchema,
    expiresAt: z.string(),
    account: z
      .object({ exists: z.boolean(), hasPassword: z.boolean() })
      .nullable()
      .describe(
        "Whether an account exists for the invited address, and whether it has a password; null when the link was shown to the inviting admin (no mail server), so an admin cannot learn through a link whether an address has an account here.",
      ),
  })
  .nullable();
