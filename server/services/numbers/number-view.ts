import { and, eq, ne, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import type { OwnedNumber } from "@/db/queries/numbers";
import { agents } from "@/db/schema";
import { getConfig } from "@/server/config/env";
import type { TNumber } from "@/server/routers/numbers/number.schema";

/** The agents of the organization whose pools hold each number (archived agents left out). */
export async function findPoolHolders(db: DbOrTx, organizationId: string): Promise<Map<string, Array<{ agentId: string; name: string }>>> {
  const rows = await db
    .select({ id: agents.id, name: agents.name, phoneNumbers: agents.phoneNumbers })
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), ne(agents.status, "ARCHIVED")));
  const holders = new Map<string, Array<{ agentId: string; name: string }>>();
  for (const row of rows) for (const number of row.phoneNumbers) holders.set(number, [...(holders.get(number) ?? []), { agentId: row.id, name: row.name }]);
  return holders;
}

/** Removes released or lost numbers from every pool of the organization (one statement). */
export async function removeFromPools(db: DbOrTx, params: { organizationId: string; phoneNumber: string; now: Date }): Promise<void> {
  await db
    .update(agents)
    .set({
      phoneNumbers: sql`coalesce((select jsonb_agg(value) from jsonb_array_elements(${agents.phoneNumbers}) as value where value <> to_jsonb(${params.phoneNumber}::text)), '[]'::jsonb)`,
      updatedAt: params.now,
    })
    .where(and(eq(agents.organizationId, params.organizationId), sql`${agents.phoneNumbers} @> ${JSON.stringify([params.phoneNumber])}::jsonb`));
}

/** The daily cap that applies to the number (its own, else the deployment's NUMBER_DAILY_CALL_CAP). */
export function effectiveDailyCallCap(row: Pick<OwnedNumber, "dailyCallCap">): number {
  return row.dailyCallCap ?? getConfig().NUMBER_DAILY_CALL_CAP;
}

/** A number as the API and console show it. */
export function toNumberView(row: OwnedNumber, agentsHolding: Array<{ agentId: string; name: string }> = []): TNumber {
  return {
    numberId: row.id,
    phoneNumber: row.phoneNumber,
    carrier: row.carrier,
    capabilities: { voice: row.voice, sms: row.sms, inbound: row.inbound },
    source: row.source,
    status: row.status,
    statusReason: row.statusReason,
    region: row.region,
    locality: row.locality,
    dailyCallCap: effectiveDailyCallCap(row),
    dailyCallCapIsDefault: row.dailyCallCap === null,
    health: {
      state: row.health,
      reason: row.healthReason,
      changedAt: row.healthChangedAt?.toISOString() ?? null,
      restingUntil: row.restingUntil?.toISOString() ?? null,
    },
    agents: agentsHolding,
    createdAt: row.createdAt.toISOString(),
    releasedAt: row.releasedAt?.toISOString() ?? null,
  };
}
