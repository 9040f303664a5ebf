import { and, eq, inArray } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { sequences } from "@/db/schema";
import type { TPreviewEnrollmentResponse } from "@/server/routers/enrollment/preview-enrollment.schema";
import { planFirstCall } from "@/server/services/scheduling/compute-step-due-at";
import { getRemainingCredits } from "./checks";
import { decideBulkEnrollment, type DecideBulkEnrollmentParams } from "./decide-bulk-enrollment";

/** The extremes of the jitter draw (`random()` is uniform in [0, 1)). */
const LOWEST_DRAW = () => 0;
const HIGHEST_DRAW = () => 1 - Number.EPSILON;

/**
 * POST …/schedule/sequences/preview: what bulk enrollment would decide on this body now — the same whole-request errors
 * and the same per-contact rejections (one code path: `decideBulkEnrollment`) — writing and reserving nothing.
 * Unlike bulk enrollment it answers 200 when no contact is valid (`accepted: 0`; bulk would answer 400
 * NO_VALID_CONTACTS) and reports the credit check instead of failing it (`credits.sufficient`; bulk: 402).
 *
 * `firstCallAt`: the earliest and latest first-call times of the accepted contacts that would start now (a chained
 * contact behind a busy chain, or behind an earlier contact of its group in the request, waits and has no time yet),
 * over the whole jitter range of the agent's delays; null when none would start.
 */
export async function previewBulkEnrollment(db: DbOrTx, params: DecideBulkEnrollmentParams): Promise<TPreviewEnrollmentResponse> {
  const { agent, valid, rejected } = await decideBulkEnrollment(db, params);
  const remaining = await getRemainingCredits(db, { organizationId: params.organizationId, now: params.now });

  const groupKeys = [...new Set(valid.map((contact) => contact.groupKey).filter((key): key is string => key !== null))];
  const busyChains = new Set<string>();
  if (groupKeys.length > 0) {
    const rows = await db
      .selectDistinct({ groupKey: sequences.groupKey })
      .from(sequences)
      .where(and(eq(sequences.agentId, agent.agentId), inArray(sequences.groupKey, groupKeys), eq(sequences.lifecycleStatus, "in progress")));
    for (const row of rows) busyChains.add(row.groupKey!);
  }

  let earliest: number | null = null;
  let latest: number | null = null;
  for (const contact of valid) {
    if (contact.groupKey) {
      if (busyChains.has(contact.groupKey)) continue;
      busyChains.add(contact.groupKey);
    }
    const plan = (random: () => number) =>
      planFirstCall({
        steps: agent.steps,
        contactTimezone: contact.timezone,
        agentTimezone: agent.agentTimezone,
        bypassCallWindows: contact.bypassCallWindows,
        scheduledAt: contact.scheduledAt ? new Date(contact.scheduledAt) : null,
        now: params.now,
        random,
      })?.dueAt.getTime();
    const low = plan(LOWEST_DRAW);
    const high = plan(HIGHEST_DRAW);
    if (low !== undefined) earliest = earliest === null ? low : Math.min(earliest, low);
    if (high !== undefined) latest = latest === null ? high : Math.max(latest, high);
  }

  return {
    total: params.body.contacts.length,
    accepted: valid.length,
    rejected,
    firstCallAt: {
      earliest: earliest === null ? null : new Date(earliest).toISOString(),
      latest: latest === null ? null : new Date(latest).toISOString(),
    },
    credits: { required: valid.length, remaining: Math.max(0, remaining), sufficient: remaining >= valid.length },
  };
}
