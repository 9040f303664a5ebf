import { and, eq } from "drizzle-orm";
import { memberships, organizations, type MemberRole } from "@/db/schema";
import { AppError } from "../errors";
import { findOrganizationByApiKey } from "../services/api-keys/verify-api-key";
import type { Context } from "../trpc/context";

export type AuthActor = { type: "apiKey"; keyId: string } | { type: "user"; userId: string; role: MemberRole };

/** The verified organization of a request. `organizationId` is the internal id every query is scoped by. */
export type AuthContext = { organizationId: string; orgId: string; actor: AuthActor };

export async function authenticate(ctx: Context): Promise<AuthContext> {
  if (ctx.source === "rest") {
    // Raised when the x-api-key header is absent (UNAUTHORIZED) or does not match a live key (INVALID_API_KEY).
    if (!ctx.apiKey) throw new AppError("UNAUTHORIZED", "Missing API key: send it in the x-api-key header.");
    const found = await findOrganizationByApiKey(ctx.db, ctx.apiKey, ctx.now());
    if (!found) throw new AppError("INVALID_API_KEY", "The API key is invalid or has been revoked.");
    return { organizationId: found.organizationId, orgId: found.orgId, actor: { type: "apiKey", keyId: found.keyId } };
  }
  const session = await ctx.getSession();
  if (!session) throw new AppError("UNAUTHORIZED", "Sign in first.");
  const requestedOrgId = ctx.headers.get("x-org-id") ?? session.activeOrgId;
  const rows = await ctx.db
    .select({ organizationId: organizations.id, orgId: organizations.orgId, role: memberships.role })
    .from(memberships)
    .innerJoin(organizations, eq(organizations.id, memberships.organizationId))
    .where(
      and(
        eq(memberships.userId, session.userId),
        requestedOrgId ? eq(organizations.orgId, requestedOrgId) : undefined,
      ),
    )
    .orderBy(organizations.createdAt)
    .limit(1);
  const membership = rows[0];
  if (!membership) throw new AppError("FORBIDDEN", "You are not a member of this organization.");
  return {
    organizationId: membership.organizationId,
    orgId: membership.orgId,
    actor: { type: "user", userId: session.userId, role: membership.role },
  };
}

