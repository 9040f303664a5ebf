import { and, eq } from "drizzle-orm";
import { memberships, organizations, type MemberRole } from "@/db/schema";
import { AppError } from "../errors";
import type { Db } from "@/db";
import { findOrganizationByApiKey } from "../services/api-keys/verify-api-key";
import type { SessionActor } from "./session-actor";

export type AuthActor = { type: "apiKey"; keyId: string } | { type: "user"; userId: string; role: MemberRole };

/** The verified organization of a request. `organizationId` is the internal id every query is scoped by. */
export type AuthContext = { organizationId: string; orgId: string; actor: AuthActor };

/**
 * What authenticate() reads of a request. The tRPC `Context` is one: tRPC depends on auth, never the other way round.
 */
export type AuthRequest = {
  db: Db;
  source: "rest" | "dashboard" | "internal";
  /** Raw `x-api-key` header (REST); null when absent. */
  apiKey: string | null;
  /** REST: the organization the `/api/v1` edge already verified for this request's key. */
  verified?: AuthContext;
  getSession: () => Promise<SessionActor | null>;
  headers: { get: (name: string) => string | null };
  now: () => Date;
};

export async function authenticate(ctx: AuthRequest): Promise<AuthContext> {
  if (ctx.source === "rest") {
    if (ctx.verified) return ctx.verified;
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

