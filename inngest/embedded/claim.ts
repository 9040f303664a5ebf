import { randomBytes } from "node:crypto";
import { sql } from "drizzle-orm";
import type { Job, RunnerContext } from "./context";
import { snapshotColumns, toSnapshot, type SnapshotRow } from "./snapshot";
import { ASYNC_COMMIT, DISCOVERY_STEP, rows, textArray, transaction } from "./state";

/**
 * Leases on inngest_jobs. A runner claims due jobs with `FOR UPDATE SKIP LOCKED` and a lease (renewed while the
 * request runs); a job whose lease expired (its runner died) or was released (its runner stopped) is claimed again.
 *
 * Two rules need more than a row lock, and are checked under transaction-scoped advisory locks:
 * - at most one discovery request per run at a time (two could both execute the same new step), and
 * - concurrency keys: live leases on a key, plus those granted in this claim, stay below its limit.
 * Jobs that touch neither (the common case) are leased by one statement without a transaction.
 */

type Candidate = Partial<SnapshotRow> & {
  id: number;
  run_id: string;
  function_id: string;
  kind: "execute" | "timer";
  step_id: string;
  attempt: number;
  keys: string[];
  limits: number[];
  contended: boolean;
  leased: boolean;
};

const MAX_ROUNDS = 4;

/**
 * The order in which due jobs are claimed: Inngest's queue score. A run's next request (first attempt, not a timer)
 * ranks by the time its run started, not by when it became due, so runs that have started finish before newer runs
 * of a busy function begin: a batch's follow-up work (its `step.sendEvent`, the run that event starts downstream)
 * does not queue behind every run created meanwhile. Retries and timers rank by their due time. (`started` is the
 * job's run, left-joined so that a job whose run is gone is still claimed, and dropped; a run's first request ranks
 * by its creation either way.)
 */
const QUEUE_SCORE = sql`case when j.kind = 'execute' and j.attempt = 0 then least(j.run_at, started.created_at) else j.run_at end`;

export function newLeaseToken(): string {
  return randomBytes(12).toString("hex");
}

function toJob(candidate: Candidate, leaseToken: string): Job {
  const snapshot = candidate.kind === "execute" && candidate.run_status !== undefined ? toSnapshot(candidate as SnapshotRow) : undefined;
  return {
    id: Number(candidate.id),
    runId: candidate.run_id,
    functionId: candidate.function_id,
    kind: candidate.kind,
    stepId: candidate.step_id,
    attempt: candidate.attempt,
    leaseToken,
    ...(snapshot ? { snapshot } : {}),
  };
}

/** Leases up to `limit` due jobs of this runner's partition and functions (but those in `skipFunctions`). */
export async function claimJobs(runner: RunnerContext, limit: number, options: { skipFunctions?: ReadonlySet<string> } = {}): Promise<Job[]> {
  const functionIds = [...runner.registry().keys()].filter((id) => !options.skipFunctions?.has(id));
  if (functionIds.length === 0 || limit <= 0) return [];
  const now = runner.now();
  const leaseToken = newLeaseToken();
  const expiresAt = new Date(now.getTime() + runner.leaseMs).toISOString();
  const claimed: Job[] = [];
  // Rows passed over (discovery or concurrency busy) are excluded from the next round, so a busy key cannot starve
  // the others and other runners can take what this one leaves.
  const passedOver: number[] = [];
  for (let round = 0; round < MAX_ROUNDS && claimed.length < limit; round++) {
    const wanted = limit - claimed.length;
    const candidates = await rows<Candidate>(
      runner.db,
      sql`
      with candidates as (
        select j.id, j.run_id, j.function_id, j.kind, j.step_id, j.attempt, j.concurrency_keys as keys, j.concurrency_limits as limits,
          (cardinality(j.concurrency_keys) > 0 or (j.kind = 'execute' and j.step_id = ${DISCOVERY_STEP} and exists (
            select 1 from inngest_jobs o where o.run_id = j.run_id and o.kind = 'execute' and o.step_id = ${DISCOVERY_STEP} and o.id <> j.id
          ))) as contended
        from inngest_jobs j
        left join inngest_runs started on started.id = j.run_id
        where ${ASYNC_COMMIT} and j.partition = ${runner.partition} and j.function_id = any(${textArray(functionIds)}::text[])
          and j.run_at <= ${now.toISOString()}::timestamptz
          and (j.lease_token is null or j.lease_expires_at < ${now.toISOString()}::timestamptz)
          ${passedOver.length ? sql`and j.id <> all(${`{${passedOver.join(",")}}`}::bigint[])` : sql``}
        order by ${QUEUE_SCORE}, j.id
        limit ${wanted}
        for update of j skip locked
      ), leased as (
        update inngest_jobs set lease_token = ${leaseToken}, lease_owner = ${runner.id}, lease_expires_at = ${expiresAt}::timestamptz
        where id in (select id from candidates where not contended)
        returning id
      )
      select c.*, l.id is not null as leased, ${snapshotColumns(sql`r`, sql`c.id`)}
      from candidates c
      left join leased l on l.id = c.id
      left join inngest_runs r on r.id = c.run_id and l.id is not null and c.kind = 'execute'
      order by c.id`,
    );
    const contended: Candidate[] = [];
    for (const candidate of candidates) {
      if (candidate.leased) claimed.push(toJob(candidate, leaseToken));
      else contended.push(candidate);
    }
    if (contended.length) {
      const granted = await claimContended(runner, contended, leaseToken, expiresAt, now);
      for (const candidate of contended) {
        if (granted.has(Number(candidate.id))) claimed.push(toJob(candidate, leaseToken));
        else passedOver.push(Number(candidate.id));
      }
    }
    if (candidates.length < wanted) break;
  }
  return claimed;
}

const isDiscovery = (candidate: Candidate) => candidate.kind === "execute" && candidate.step_id === DISCOVERY_STEP;

/**
 * Jobs with a concurrency key or a second discovery job of their run, leased under advisory locks. Returns the ids
 * leased. Four round trips: the first statement locks the jobs again (between the first statement of the claim and
 * this transaction another runner may have taken some) and takes the advisory locks on the candidates' runs and
 * keys; the second, which starts after those locks are held, so its snapshot sees every lease committed by a claimer
 * that held one of them before, reads the runs with a discovery request running and the live leases per key; the
 * third grants the leases; then the commit.
 */
async function claimContended(runner: RunnerContext, candidates: Candidate[], leaseToken: string, expiresAt: string, now: Date): Promise<Set<number>> {
  const nowIso = now.toISOString();
  // Locks for every candidate (a superset of what stays locked), sorted: two claimers cannot deadlock.
  const discoveryRuns = [...new Set(candidates.filter(isDiscovery).map((c) => c.run_id))].sort();
  const keys = [...new Set(candidates.flatMap((c) => c.keys))].sort();
  const lockKeys = [...discoveryRuns.map((id) => `inngest-discovery:${id}`), ...keys.map((key) => `inngest-concurrency:${key}`)].sort();
  return transaction(runner.db, async (tx) => {
    const locked = await rows<Candidate>(
      tx,
      sql`
      with locked as (
        select id, run_id, function_id, kind, step_id, attempt, concurrency_keys as keys, concurrency_limits as limits, run_at
        from inngest_jobs
        where ${ASYNC_COMMIT} and id = any(${`{${candidates.map((c) => c.id).join(",")}}`}::bigint[])
          and (lease_token is null or lease_expires_at < ${nowIso}::timestamptz)
        for update skip locked
      ), advisory as (
        select count(pg_advisory_xact_lock(hashtextextended(k, 0))) as taken
        from (select k from unnest(${textArray(lockKeys)}::text[]) as k order by k) as sorted
      )
      select locked.id, run_id, function_id, kind, step_id, attempt, keys, limits
      from locked, advisory
      order by run_at, id`,
    );
    if (locked.length === 0) return new Set<number>();
    // Runs with a discovery request running now: a live lease on one of their discovery jobs (the jobs locked above
    // have none). Live leases per concurrency key.
    const [busy] = await rows<{ running: string[]; active: Array<{ key: string; active: number }> }>(
      tx,
      sql`
      select
        array(
          select distinct run_id from inngest_jobs
          where run_id = any(${textArray(discoveryRuns)}::text[]) and kind = 'execute' and step_id = ${DISCOVERY_STEP}
            and lease_token is not null and lease_expires_at >= ${nowIso}::timestamptz
        ) as running,
        coalesce((
          select json_agg(json_build_object('key', key, 'active', active)) from (
            select k as key, count(*)::int as active
            from inngest_jobs j, unnest(j.concurrency_keys) as k
            where j.concurrency_keys && ${textArray(keys)}::text[] and k = any(${textArray(keys)}::text[])
              and j.lease_token is not null and j.lease_expires_at >= ${nowIso}::timestamptz
            group by k
          ) as counted
        ), '[]'::json) as active`,
    );
    const busyRuns = new Set(busy?.running ?? []);
    const room = concurrencyRoom(locked, new Map((busy?.active ?? []).map((row) => [row.key, row.active])));
    const discoveryGranted = new Set<string>();
    const leased: number[] = [];
    for (const candidate of locked) {
      const discovery = isDiscovery(candidate);
      if (discovery && (busyRuns.has(candidate.run_id) || discoveryGranted.has(candidate.run_id))) continue;
      if (!candidate.keys.every((key) => (room.get(key) ?? 0) > 0)) continue;
      for (const key of candidate.keys) room.set(key, room.get(key)! - 1);
      if (discovery) discoveryGranted.add(candidate.run_id);
      leased.push(Number(candidate.id));
    }
    if (leased.length) {
      await tx.execute(sql`
        update inngest_jobs set lease_token = ${leaseToken}, lease_owner = ${runner.id}, lease_expires_at = ${expiresAt}::timestamptz
        where id = any(${`{${leased.join(",")}}`}::bigint[])`);
    }
    return new Set(leased);
  });
}

/** Free slots per concurrency key of the candidates: its limit (the smallest a candidate gives) minus its live leases. */
function concurrencyRoom(candidates: Candidate[], activeByKey: Map<string, number>): Map<string, number> {
  const limits = new Map<string, number>();
  for (const candidate of candidates) candidate.keys.forEach((key, index) => limits.set(key, Math.min(limits.get(key) ?? Infinity, candidate.limits[index] ?? 1)));
  return new Map([...limits].map(([key, limit]) => [key, limit - (activeByKey.get(key) ?? 0)]));
}

/** Extends a running job's lease (heartbeat); a no-op once the lease was lost. */
export async function renewLease(runner: RunnerContext, job: Job): Promise<void> {
  await runner.db
    .execute(
      sql`update inngest_jobs set lease_expires_at = ${new Date(runner.now().getTime() + runner.leaseMs).toISOString()}::timestamptz
        where id = ${job.id} and lease_token = ${job.leaseToken} and ${ASYNC_COMMIT}`,
    )
    .catch(() => {});
}

/**
 * Gives leased jobs back at once (a stopping runner's unfinished requests): another runner claims them without
 * waiting for the lease to expire. A job whose run already has the same job pending is deleted instead (the pending
 * one keeps the higher attempt). Their runner's late results are dropped, as for an expired lease.
 */
export async function releaseLeases(runner: RunnerContext, jobs: readonly Job[]): Promise<number> {
  if (jobs.length === 0) return 0;
  const now = runner.now().toISOString();
  const input = jobs.map((job) => ({ id: job.id, token: job.leaseToken }));
  const [row] = await rows<{ released: number }>(
    runner.db,
    sql`
    with mine as (
      select j.id, j.run_id, j.kind, j.step_id, j.attempt
      from inngest_jobs j join jsonb_to_recordset(${JSON.stringify(input)}::jsonb) as x(id bigint, token text) on j.id = x.id and j.lease_token = x.token
      where ${ASYNC_COMMIT}
      for update of j
    ), merged as (
      update inngest_jobs p set attempt = greatest(p.attempt, m.attempt), run_at = least(p.run_at, ${now}::timestamptz)
      from mine m
      where p.run_id = m.run_id and p.kind = m.kind and p.step_id = m.step_id and p.lease_token is null
      returning m.id
    ), dropped as (
      delete from inngest_jobs where id in (select id from merged)
    ), released as (
      update inngest_jobs set lease_token = null, lease_owner = null, lease_expires_at = null, run_at = least(run_at, ${now}::timestamptz)
      where id in (select id from mine) and id not in (select id from merged)
      returning id
    )
    select (select count(*) from released)::int + (select count(*) from merged)::int as released`,
  );
  return row?.released ?? 0;
}
