import { z } from "zod";
import { memberRole } from "@/db/schema";

export const ZMemberRoleSchema = z.enum(memberRole.enumValues).describe("admin: everything; support: conversations, recordings, meetings, read-only elsewhere; member: read-only.");

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

export const ZChangeMemberRoleRequestSchema = z.object({ userId: z.string().min(1), role: ZMemberRoleSchema });
export const ZChangeMemberRoleResponseSchema = z.object({ userId: z.string(), role: ZMemberRoleSchema });

export const ZRemoveMemberRequestSchema = z.object({ userId: z.string().min(1) });
export const ZRemoveMemberResponseSchema = z.object({ userId: z.string(), removed: z.boolean() });
