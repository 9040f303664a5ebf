import { inArray, sql } from "drizzle-orm";
import type { Tx } from "@/db";
import { dialRateCursors } from "@/db/schema";
import { getConfig } from "@/server/config/env";

/** Calls per second an organization dials, all its agents together, unless its `dial_rate_per_second` says otherwise. */
export function defaultOrganizationDialRate(): number {
  return getConfig().CALL_DIAL_RATE_PER_SECOND;
}

/**
 * Calls per second from one caller ID (one of an agent's numbers). Carriers and providers meter outbound calls per
 * number and account (Twilio's default is 1 call/s per account, raised on request; carriers flag numbers that place
 * bursts of short calls as spam): 5/s keeps a single number well clear of spam heuristics while an agent with a few
 * numbers can use the organization's whole default 10/s.
 */
export function defaultNumberDialRate(): number {
  return getConfig().CALL_DIAL_RATE_PER_NUMBER_PER_SECOND;
}

/** How far ahead the dispatcher plans dial slots in one claim (and waits in one step). */
export function dialPlanningHorizonMs(): number {
  return getConfig().CALL_DISPATCH_HORIZON_MS;
}

/**
 * Unused capacity an idle subject may spend at once: a cursor left behind is raised to `now − BURST_CREDIT_MS`, so an
 * idle organization dials at most one second's worth of calls in a burst (a token bucket holding `rate` tokens).
 */
export const BURST_CREDIT_MS = 1000;

export type DialRateSubject = { key: string; ratePerSecond: number };

export function organizationSubject(organizationId: string, ratePerSecond: number | null): DialRateSubject {
  return { key: `org:${organizationId}`, ratePerSecond: ratePerSecond ?? defaultOrganizationDialRate() };
}

export function numberSubject(organizationId: string, fromPhoneNumber: string): DialRateSubject {
  return { key: `number:${organizationId}:${fromPhoneNumber}`, ratePerSecond: defaultNumberDialRate() };
}

/**
 * Dial slots under several rate limits at once (GCRA-style pacing: each subject's cursor is the earliest moment its
 * next call may start; a call's slot is the latest of its due time and its subjects' cursors, and moves each cursor
 * one interval on). Written here rather than with a rate-limiter library: what the dispatcher needs is the planned
 * time of each call, shared by every dispatcher through rows locked in the claim transaction — limiter libraries
 * answer allow/deny now and keep their own state. Load the cursors with `load`, plan with `plan`, write with `save`,
 * all inside one transaction.
 */
export class DialRatePlanner {
  private readonly cursors = new Map<string, number>();
  private readonly touched = new Set<string>();

  private constructor(private readonly now: number) {}

  /** Locks and reads the cursors of `keys` (rows created on first use), in key order so dispatchers never deadlock. */
  static async load(tx: Tx, keys: string[], now: Date): Promise<DialRatePlanner> {
    const planner = new DialRatePlanner(now.getTime());
    const unique = [...new Set(keys)].sort();
    if (unique.length === 0) return planner;
    await tx
      .insert(dialRateCursors)
      .values(unique.map((key) => ({ key, nextSlotAt: new Date(0) })))
      .onConflictDoNothing();
    const rows = await tx
      .select()
      .from(dialRateCursors)
      .where(inArray(dialRateCursors.key, unique))
      .orderBy(dialRateCursors.key)
      .for("update");
    for (const row of rows) planner.cursors.set(row.key, row.nextSlotAt.getTime());
    return planner;
  }

  /** The slot a call due at `dueAt` would get now (without taking it). */
  peek(subjects: DialRateSubject[], dueAt: Date): number {
    let slot = Math.max(dueAt.getTime(), this.now - BURST_CREDIT_MS);
    for (const subject of subjects) slot = Math.max(slot, this.cursors.get(subject.key) ?? 0);
    return slot;
  }

  /** Takes the slot: every subject's cursor moves one interval past it. */
  take(subjects: DialRateSubject[], slot: number): void {
    for (const subject of subjects) {
      this.cursors.set(subject.key, slot + 1000 / subject.ratePerSecond);
      this.touched.add(subject.key);
    }
  }

  async save(tx: Tx): Promise<void> {
    if (this.touched.size === 0) return;
    const rows = [...this.touched].map((key) => sql`(${key}, ${new Date(this.cursors.get(key)!).toISOString()}::timestamptz)`);
    await tx.execute(sql`
      update ${dialRateCursors} as c set next_slot_at = v.next_slot_at
      from (values ${sql.join(rows, sql`, `)}) as v(key, next_slot_at)
      where c.key = v.key`);
  }
}
