import { z } from "zod";

export const ZMemberRoleSchema = z.enum(["admin", "support", "member"]).describe("admin: everything; support: conversations, recordings, meetings, read-only elsewhere; member: read-only.");

export const ZMemberSchema = z.object({
  userId: z.string(),
  email: z.string(),
  name: z.string(),
  role: ZMemberRoleSchema,
  signInMethod: z.enum(["password", "sso"]),
  joinedAt: z.string().describe("ISO 8601"),
});

export const ZListMembersRequestSchema = z.object({}).optional();
export const ZListMembersResponseSchema = z.object({ members: z.array(ZMemberSchema) });

export const ZAddMemberRequestSchema = z.object({
  email: z.email("Enter a valid email address.").max(320),
  role: ZMemberRoleSchema,
  name: z.string().max(200).optional(),
});
export const ZAddMemberResponseSchema = z.object({
  userId: z.string(),
  email: z.string(),
  role: ZMemberRoleSchema,
  initialPassword: z.string().nullable().describe("Shown once, for a new person when password sign-in is on."),
});

export const ZChangeMemberRoleRequestSchema = z.object({ userId: z.string().min(1), role: ZMemberRoleSchema });
export const ZChangeMemberRoleResponseSchema = z.object({ userId: z.string(), role: ZMemberRoleSchema });

export const ZRemoveMemberRequestSchema = z.object({ userId: z.string().min(1) });
export const ZRemoveMemberResponseSchema = z.object({ userId: z.string(), removed: z.boolean() });
