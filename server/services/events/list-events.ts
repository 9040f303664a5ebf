import { and, asc, eq, gt } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { callEvents } from "@/db/schema";
import type { TListEventsResponse } from "@/server/routers/events/list-events.schema";
import { assertAgentInOrganization } from "@/db/queries/agents";
import { decodeEventCursor, encodeEventCursor } from "./event-cursor";

export type ListEventsParams = {
  organizationId: string;
  /** A cursor from a previous page (`nextCursor`); none = from the oldest event kept. */
  after?: string;
  limit: number;
  /** Only this agent's calls; 404 AGENT_NOT_FOUND when it is not an agent of the organization. */
  agentId?: string;
};

/**
 * GET /events: the organization's call results in creation order, after the cursor. `data` is the webhook body the
 * deliveries of the call send (parsed back from the stored bytes), `id` their `webhook-id`. `nextCursor` is the last
 * event's cursor (or the one given, when nothing is newer): polling with it never skips or repeats an event.
 */
export async function listEvents(db: DbOrTx, params: ListEventsParams): Promise<TListEventsResponse> {
  const afterPosition = params.after === undefined ? null : decodeEventCursor(params.organizationId, params.after);
  if (params.agentId !== undefined) await assertAgentInOrganization(db, { organizationId: params.organizationId, agentId: params.agentId });
  const rows = await db
    .select({ position: callEvents.position, type: callEvents.type, messageId: callEvents.messageId, body: callEvents.body, createdAt: callEvents.createdAt })
    .from(callEvents)
    .where(
      and(
        eq(callEvents.organizationId, params.organizationId),
        params.agentId === undefined ? undefined : eq(callEvents.agentId, params.agentId),
        afterPosition === null ? undefined : gt(callEvents.position, afterPosition),
      ),
    )
    .orderBy(asc(callEvents.position))
    .limit(params.limit + 1);
  const page = rows.slice(0, params.limit);
  const last = page[page.length - 1];
  return {
    events: page.map((row) => ({
      id: row.messageId,
      type: row.type,
      createdAt: row.createdAt.toISOString(),
      data: JSON.parse(row.body) as Record<string, unknown>,
    })),
    nextCursor: last ? encodeEventCursor(params.organizationId, last.position) : (params.after ?? null),
    hasMore: rows.length > params.limit,
  };
}
