import { and, eq, isNull, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { webhookEndpoints } from "@/db/schema";

export type EndpointHealthState = "healthy" | "failing" | "no-deliveries" | "disabled";

export type EndpointHealth = {
  endpointId: string;
  url: string;
  state: EndpointHealthState;
  lastSuccessAt: string | null;
  /** The first failed attempt since the last success, while the latest attempt failed. */
  failingSince: string | null;
  /** Failed attempts since the last success (every delivery of the endpoint, test events included). */
  consecutiveFailures: number;
  /** The earliest automatic retry still due for one of its deliveries. */
  nextRetryAt: string | null;
  lastError: string | null;
  lastStatusCode: number | null;
};

type HealthRow = {
  id: string;
  url: string;
  enabled: boolean;
  attempts: number;
  last_success_at: string | null;
  last_attempt_succeeded: boolean | null;
  failing_since: string | null;
  consecutive_failures: number;
  next_retry_at: string | null;
  last_error: string | null;
  last_status_code: number | null;
};

/**
 * How each live endpoint of the organization is doing, from its attempt log: when it last answered 2xx, since when
 * it has been failing, how many attempts in a row failed and when the next retry is due. An endpoint whose latest
 * attempt failed is `failing` (however it is configured); a disabled one says so first.
 */
export async function listEndpointHealth(db: DbOrTx, params: { organizationId: string }): Promise<EndpointHealth[]> {
  const endpoints = await db
    .select({ id: webhookEndpoints.id })
    .from(webhookEndpoints)
    .where(and(eq(webhookEndpoints.organizationId, params.organizationId), isNull(webhookEndpoints.deletedAt)));
  if (endpoints.length === 0) return [];
  const rows = (await db.execute(sql`
    with attempts as (
      select d.endpoint_id, a.attempted_at, a.succeeded, a.error, a.status_code,
             row_number() over (partition by d.endpoint_id order by a.attempted_at desc, a.id desc) as recency
        from webhook_delivery_attempts a
        join webhook_deliveries d on d.id = a.delivery_id
       where a.organization_id = ${params.organizationId} and d.organization_id = ${params.organizationId}
    ),
    last_success as (
      select endpoint_id, max(attempted_at) as at from attempts where succeeded group by endpoint_id
    )
    select e.id, e.url, e.enabled,
           (select count(*)::int from attempts t where t.endpoint_id = e.id) as attempts,
           to_char(s.at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as last_success_at,
           (select t.succeeded from attempts t where t.endpoint_id = e.id and t.recency = 1) as last_attempt_succeeded,
           to_char((select min(t.attempted_at) from attempts t where t.endpoint_id = e.id and not t.succeeded and (s.at is null or t.attempted_at > s.at)) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as failing_since,
           (select count(*)::int from attempts t where t.endpoint_id = e.id and not t.succeeded and (s.at is null or t.attempted_at > s.at)) as consecutive_failures,
           to_char((select min(d.next_attempt_at) from webhook_deliveries d where d.endpoint_id = e.id and d.organization_id = e.organization_id and d.status = 'pending') at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as next_retry_at,
           (select t.error from attempts t where t.endpoint_id = e.id and t.recency = 1) as last_error,
           (select t.status_code from attempts t where t.endpoint_id = e.id and t.recency = 1) as last_status_code
      from webhook_endpoints e
      left join last_success s on s.endpoint_id = e.id
     where e.organization_id = ${params.organizationId} and e.deleted_at is null
     order by e.created_at, e.id
  `)) as unknown as HealthRow[];
  return rows.map((row) => {
    const failing = row.last_attempt_succeeded === false;
    const state: EndpointHealthState = !row.enabled ? "disabled" : row.attempts === 0 ? "no-deliveries" : failing ? "failing" : "healthy";
    return {
      endpointId: row.id,
      url: row.url,
      state,
      lastSuccessAt: row.last_success_at,
      failingSince: failing ? row.failing_since : null,
      consecutiveFailures: row.consecutive_failures,
      nextRetryAt: row.next_retry_at,
      lastError: failing ? (row.last_error ?? (row.last_status_code ? `HTTP ${row.last_status_code}` : null)) : null,
      lastStatusCode: row.last_status_code,
    };
  });
}
