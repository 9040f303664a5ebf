import { z } from "zod";
import { ZPasswordSchema } from "../invitations/invitations.schema";

export const ZGetAccountRequestSchema = z.object({}).optional();
export const ZGetAccountResponseSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  hasPassword: z.boolean().describe("False for single sign-on accounts."),
  operator: z.boolean().describe("Listed in OPERATOR_EMAILS: sees every organization's background jobs."),
});

export const ZChangePasswordRequestSchema = z.object({
  currentPassword: z.string().min(1).max(200),
  newPassword: ZPasswordSchema,
});
export const ZChangePasswordResponseSchema = z.object({ changed: z.boolean(), email: z.string() });
