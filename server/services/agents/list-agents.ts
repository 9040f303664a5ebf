import { and, asc, count, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import { AppError } from "@/server/errors";
import { callingLimitColumns, toCallingLimits } from "./calling-limits";

export const AGENTS_PAGE_SIZE = 100;

export type ListAgentsParams = {
  organizationId: string;
  /** The verified identity-provider org ID of the caller. */
  callerOrgId: string;
  /** The `orgId` the caller asked for; must equal `callerOrgId`. */
  requestedOrgId: string;
  page: number;
};

export async function listAgents(db: DbOrTx, params: ListAgentsParams) {
  // ORG_MISMATCH: the query names an organization other than the key's own.
  if (params.requestedOrgId !== params.callerOrgId) {
    throw new AppError("ORG_MISMATCH", "orgId does not match the organization of the API key.");
  }
  const where = and(eq(agents.organizationId, params.organizationId));
  const [rows, totals] = await Promise.all([
    db
      .select({ agentId: agents.id, name: agents.name, status: agents.status, pauseReason: agents.pauseReason, ...callingLimitColumns })
      .from(agents)
      .where(where)
      .orderBy(asc(agents.createdAt), asc(agents.id))
      .limit(AGENTS_PAGE_SIZE)
      .offset((params.page - 1) * AGENTS_PAGE_SIZE),
    db.select({ total: count() }).from(agents).where(where),
  ]);
  const totalItems = totals[0]?.total ?? 0;
  const totalPages = Math.ceil(totalItems / AGENTS_PAGE_SIZE);
  return {
    agents: rows.map((row) => ({ agentId: row.agentId, name: row.name, status: row.status, callingLimits: toCallingLimits(row), pauseReason: row.pauseReason })),
    pagination: {
      page: params.page,
      pageSize: AGENTS_PAGE_SIZE,
      totalItems,
      totalPages,
      hasMore: params.page < totalPages,
    },
  };
}
