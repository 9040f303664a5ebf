import { and, eq, ne } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { findLiveNumberRows } from "@/db/queries/numbers";
import { numbers } from "@/db/schema";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import { getLogger } from "@/server/observability/logger";
import type { TNumber } from "@/server/routers/numbers/number.schema";
import { getNumberProvisioning } from "./get-number-provider";
import { removeFromPools, toNumberView } from "./number-view";
import { e164OfField } from "./phone-field";
import { providerFailure } from "./provider-failure";

export type StartCallerIdValidationParams = { organizationId: string; phoneNumber: string; friendlyName?: string; actor: string; now: Date };

/**
 * Bring your own number as an outbound caller ID (or prove a disputed one): the carrier calls the number and whoever
 * answers enters the code returned here (Twilio's ValidationRequests). The row is written first (`verifying`, the
 * validation call's SID kept to match the result), then the carrier is asked; if it refuses, the row is put back as it
 * was. Refused: a number another organization owns (409 NUMBER_OWNED_ELSEWHERE), one that is already ours (409).
 */
export async function startCallerIdValidation(db: Db, params: StartCallerIdValidationParams): Promise<{ number: TNumber; validationCode: string }> {
  const phoneNumber = e164OfField("phoneNumber", params.phoneNumber);
  const rows = await findLiveNumberRows(db, [phoneNumber]);
  const active = rows.find((row) => row.status === "active");
  if (active && active.organizationId !== params.organizationId) throw new AppError("NUMBER_OWNED_ELSEWHERE", `phoneNumber: ${phoneNumber} belongs to another organization`);
  if (active) throw new AppError("CONFLICT", `phoneNumber: ${phoneNumber} is already one of this organization's numbers`);
  const ours = rows.find((row) => row.organizationId === params.organizationId);

  const pending = ours
    ? (await db.update(numbers).set({ status: "verifying", statusReason: "Waiting for the code to be entered on the validation call.", updatedAt: params.now }).where(eq(numbers.id, ours.id)).returning())[0]!
    : (
        await db
          .insert(numbers)
          .values({
            id: newId("number"),
            organizationId: params.organizationId,
            phoneNumber,
            carrier: "twilio",
            voice: true,
            sms: false,
            inbound: false,
            source: "verified-caller-id",
            status: "verifying",
            statusReason: "Waiting for the code to be entered on the validation call.",
            createdBy: params.actor,
            createdAt: params.now,
            updatedAt: params.now,
          })
          .returning()
      )[0]!;

  const { provider, validationCallbackUrl } = await getNumberProvisioning();
  try {
    const validation = await provider.startCallerIdValidation({ phoneNumber, friendlyName: params.friendlyName?.trim() || phoneNumber, statusCallback: validationCallbackUrl });
    const [updated] = await db.update(numbers).set({ providerSid: validation.providerCallId, updatedAt: params.now }).where(eq(numbers.id, pending.id)).returning();
    return { number: toNumberView(updated!), validationCode: validation.validationCode };
  } catch (error) {
    if (ours) await db.update(numbers).set({ status: ours.status, statusReason: ours.statusReason, updatedAt: params.now }).where(eq(numbers.id, ours.id));
    else await db.delete(numbers).where(eq(numbers.id, pending.id));
    throw providerFailure(error, "place the validation call");
  }
}

export type CompleteCallerIdValidationParams = { validationCallSid: string; succeeded: boolean; outgoingCallerIdSid: string | null; now: Date };

/**
 * The carrier's signed result of a validation call. Success: the number becomes the organization's (a disputed one
 * keeps its capabilities; a new caller ID places calls only), and every other organization's disputed claim on it is
 * released and taken out of its pools. Failure: a disputed number is disputed again; a new caller ID is released.
 */
export async function completeCallerIdValidation(db: Db, params: CompleteCallerIdValidationParams): Promise<{ numberId: string | null; status: string | null }> {
  const [pending] = await db
    .select()
    .from(numbers)
    .where(and(eq(numbers.providerSid, params.validationCallSid), eq(numbers.status, "verifying")))
    .limit(1);
  if (!pending) {
    getLogger("numbers").info({ validationCallSid: params.validationCallSid }, "a caller-ID validation result for no pending validation; ignored");
    return { numberId: null, status: null };
  }
  const { now } = params;
  const migrated = pending.source === "migrated";
  if (!params.succeeded) {
    await db
      .update(numbers)
      .set(
        migrated
          ? { status: "disputed", statusReason: "The validation call failed (the code was not entered): try again.", updatedAt: now }
          : { status: "released", statusReason: "The validation call failed (the code was not entered).", releasedAt: now, updatedAt: now },
      )
      .where(eq(numbers.id, pending.id));
    return { numberId: pending.id, status: migrated ? "disputed" : "released" };
  }
  return db.transaction(async (tx) => {
    const [taken] = await tx
      .select({ id: numbers.id })
      .from(numbers)
      .where(and(eq(numbers.phoneNumber, pending.phoneNumber), eq(numbers.status, "active")))
      .limit(1);
    if (taken) {
      await tx.update(numbers).set({ status: "released", statusReason: "Another organization owns the number.", releasedAt: now, updatedAt: now }).where(eq(numbers.id, pending.id));
      return { numberId: pending.id, status: "released" };
    }
    await tx
      .update(numbers)
      .set({ status: "active", statusReason: "Proved by a caller-ID validation call.", providerSid: params.outgoingCallerIdSid ?? pending.providerSid, updatedAt: now })
      .where(eq(numbers.id, pending.id));
    await releaseOtherClaims(tx, { phoneNumber: pending.phoneNumber, winner: pending.organizationId, now });
    return { numberId: pending.id, status: "active" };
  });
}

async function releaseOtherClaims(tx: DbOrTx, params: { phoneNumber: string; winner: string; now: Date }): Promise<void> {
  const others = await tx
    .update(numbers)
    .set({ status: "released", statusReason: "Another organization proved the number is theirs.", releasedAt: params.now, updatedAt: params.now })
    .where(and(eq(numbers.phoneNumber, params.phoneNumber), ne(numbers.organizationId, params.winner), ne(numbers.status, "released")))
    .returning({ organizationId: numbers.organizationId });
  for (const other of others) await removeFromPools(tx, { organizationId: other.organizationId, phoneNumber: params.phoneNumber, now: params.now });
}
