import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { calls, memberships, organizations } from "@/db/schema";

/**
 * Resolves a call link (`callUrl`, `${baseUrl}/calls/{callId}`, which carries no organization) to the organization
 * of the call, but only for a member of that organization: a person outside it learns nothing, not even that the
 * call exists (null either way).
 */
export async function findCallOrganizationForMember(db: DbOrTx, params: { callId: string; userId: string }): Promise<{ orgId: string } | null> {
  const [row] = await db
    .select({ orgId: organizations.orgId })
    .from(calls)
    .innerJoin(organizations, eq(organizations.id, calls.organizationId))
    .innerJoin(memberships, and(eq(memberships.organizationId, calls.organizationId), eq(memberships.userId, params.userId)))
    .where(eq(calls.id, params.callId))
    .limit(1);
  return row ?? null;
}
