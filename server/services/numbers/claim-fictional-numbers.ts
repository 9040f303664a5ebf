import { randomInt } from "node:crypto";
import type { DbOrTx } from "@/db";
import { numbers } from "@/db/schema";
import { newId } from "@/server/ids";
import { listAreaCodes } from "@/server/services/compliance/area-code-regions";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";

/** North American numbers reserved for fiction (555-0100…0199) in area codes with a state or province. */
function fictionalNumbers(): string[] {
  const list: string[] = [];
  for (const { areaCode, regions } of listAreaCodes()) {
    if (regions.length === 0) continue;
    for (let line = 100; line < 200; line++) {
      const number = `+1${areaCode}5550${line}`;
      if (normalizePhoneNumber(number)) list.push(number);
    }
  }
  return list;
}

let cached: string[] | null = null;

/**
 * The demo seed's (and tests') numbers: `count` fictional numbers nobody owns, made the organization's own
 * (`platform-account`, voice and SMS) — for the voice simulator only: the demo data is never dialed through a real
 * engine (dial gate), and such numbers cannot be bought. Starts at a random place so parallel seeds rarely meet;
 * a number taken meanwhile is skipped (the unique index decides).
 */
export async function claimFictionalNumbers(db: DbOrTx, params: { organizationId: string; count: number; now?: Date }): Promise<string[]> {
  cached ??= fictionalNumbers();
  const pool = cached;
  const claimed: string[] = [];
  let position = randomInt(pool.length);
  for (let tried = 0; claimed.length < params.count && tried < pool.length; tried += 1, position = (position + 1) % pool.length) {
    const phoneNumber = pool[position]!;
    const now = params.now ?? new Date();
    const [row] = await db
      .insert(numbers)
      .values({
        id: newId("number"),
        organizationId: params.organizationId,
        phoneNumber,
        carrier: "twilio",
        voice: true,
        sms: true,
        inbound: true,
        source: "platform-account",
        status: "active",
        statusReason: "A fictional number (555-01xx) for the voice simulator.",
        createdAt: now,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning({ phoneNumber: numbers.phoneNumber });
    if (row) claimed.push(row.phoneNumber);
  }
  if (claimed.length < params.count) throw new Error(`Could not find ${params.count} free fictional numbers.`);
  return claimed;
}
