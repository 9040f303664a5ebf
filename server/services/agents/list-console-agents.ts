import { and, asc, count, eq, ilike, or, type SQL } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents } from "@/db/schema";
import type { TConsoleAgentSummary, TPageInfo } from "@/server/schemas/agent-config";

export const CONSOLE_AGENTS_PAGE_SIZE = 25;

export type ListConsoleAgentsParams = {
  organizationId: string;
  status?: "ACTIVE" | "PAUSED" | "ARCHIVED";
  /** Matches the name (case-insensitive, substring) or the exact agent ID. */
  search?: string;
  page: number;
  pageSize?: number;
};

function escapeLike(value: string): string {
  return value.replace(/[\\%_]/g, (c) => `\\${c}`);
}

export async function listConsoleAgents(
  db: DbOrTx,
  params: ListConsoleAgentsParams,
): Promise<{ agents: TConsoleAgentSummary[]; pagination: TPageInfo }> {
  const filters: SQL[] = [eq(agents.organizationId, params.organizationId)];
  if (params.status) filters.push(eq(agents.status, params.status));
  const search = params.search?.trim();
  if (search) filters.push(or(ilike(agents.name, `%${escapeLike(search)}%`), eq(agents.id, search))!);
  const where = and(...filters);
  const pageSize = params.pageSize ?? CONSOLE_AGENTS_PAGE_SIZE;
  const [rows, totals] = await Promise.all([
    db
      .select({
        agentId: agents.id,
        name: agents.name,
        status: agents.status,
        timezones: agents.timezones,
        steps: agents.steps,
        updatedAt: agents.updatedAt,
      })
      .from(agents)
      .where(where)
      .orderBy(asc(agents.name), asc(agents.id))
      .limit(pageSize)
      .offset((params.page - 1) * pageSize),
    db.select({ total: count() }).from(agents).where(where),
  ]);
  const totalItems = totals[0]?.total ?? 0;
  return {
    agents: rows.map((row) => ({
      agentId: row.agentId,
      name: row.name,
      status: row.status,
      timezone: row.timezones[0] ?? null,
      stepCount: row.steps.length,
      updatedAt: row.updatedAt.toISOString(),
    })),
    pagination: {
      page: params.page,
      pageSize,
      totalItems,
      totalPages: Math.ceil(totalItems / pageSize),
    },
  };
}
