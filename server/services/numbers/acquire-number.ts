import type { DbOrTx } from "@/db";
import { findLiveNumberRows } from "@/db/queries/numbers";
import { numbers, type NumberSource } from "@/db/schema";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import { getLogger } from "@/server/observability/logger";
import type { TNumber } from "@/server/routers/numbers/number.schema";
import { getNumberProvisioning, type ProvisioningCarrier } from "./get-number-provider";
import type { AccountNumber } from "./number-provider";
import { toNumberView } from "./number-view";
import { e164OfField } from "./phone-field";
import { providerFailure } from "./provider-failure";

/** Twilio's "phone number not available" on a purchase. */
const NOT_AVAILABLE = "21422";

export type AcquireNumberParams = {
  organizationId: string;
  phoneNumber: string;
  /** `purchased`: buy it from the carrier; `platform-account`: claim a number already in the platform account. */
  source: Extract<NumberSource, "purchased" | "platform-account">;
  /** The carrier it is bought from or found with (default `twilio`); its SMS then go through that carrier. */
  carrier?: ProvisioningCarrier;
  actor: string;
  now: Date;
};

/** 409 when the number is already someone's: NUMBER_OWNED_ELSEWHERE for another organization's, CONFLICT for ours. */
export async function assertNotOwned(db: DbOrTx, params: { organizationId: string; phoneNumber: string; field: string }): Promise<void> {
  const rows = await findLiveNumberRows(db, [params.phoneNumber]);
  const active = rows.find((row) => row.status === "active");
  if (active && active.organizationId !== params.organizationId) {
    throw new AppError("NUMBER_OWNED_ELSEWHERE", `${params.field}: ${params.phoneNumber} belongs to another organization`);
  }
  const ours = rows.find((row) => row.organizationId === params.organizationId);
  if (ours?.status === "active") throw new AppError("CONFLICT", `${params.field}: ${params.phoneNumber} is already one of this organization's numbers`);
  if (ours?.status === "verifying") throw new AppError("CONFLICT", `${params.field}: ${params.phoneNumber} is waiting for its caller-ID validation call`);
  if (rows.some((row) => row.status === "disputed")) {
    throw new AppError("CONFLICT", `${params.field}: ${params.phoneNumber} is disputed between organizations: it becomes the organization's that proves it with a caller-ID validation call`);
  }
}

function isUniqueViolation(error: unknown): boolean {
  const cause = (error as { cause?: { code?: string } } | null)?.cause;
  return (error as { code?: string } | null)?.code === "23505" || cause?.code === "23505";
}

/**
 * Buys a number (the carrier's webhooks set to this deployment) or claims one already in the platform account that no
 * organization owns, and makes it the organization's. The carrier is asked first: a refused purchase leaves no row.
 * Should the row then lose a race for the number (another organization's claim in between), the purchase is given
 * back and the request is refused with 409.
 */
export async function acquireNumber(db: DbOrTx, params: AcquireNumberParams): Promise<TNumber> {
  const phoneNumber = e164OfField("phoneNumber", params.phoneNumber);
  await assertNotOwned(db, { organizationId: params.organizationId, phoneNumber, field: "phoneNumber" });
  const { provider, webhooks } = await getNumberProvisioning(params.carrier);

  let bought: AccountNumber;
  if (params.source === "purchased") {
    try {
      bought = await provider.buy({ phoneNumber, webhooks, friendlyName: `${phoneNumber} (${params.organizationId})` });
    } catch (error) {
      if ((error as { code?: string }).code === NOT_AVAILABLE) throw new AppError("CONFLICT", `phoneNumber: ${phoneNumber} is no longer available: search again`);
      throw providerFailure(error, "sell the number");
    }
  } else {
    let found: AccountNumber | null;
    try {
      found = await provider.findInAccount(phoneNumber);
    } catch (error) {
      throw providerFailure(error, "look the number up");
    }
    if (!found) {
      throw new AppError("INVALID_REQUEST", `phoneNumber: ${phoneNumber} is not in the platform's carrier account: buy a number, or prove your own with a caller-ID validation call`);
    }
    try {
      await provider.pointWebhooks(found.providerSid, webhooks);
    } catch (error) {
      throw providerFailure(error, "point the number at this deployment");
    }
    bought = found;
  }

  try {
    const [row] = await db
      .insert(numbers)
      .values({
        id: newId("number"),
        organizationId: params.organizationId,
        phoneNumber,
        carrier: provider.carrier,
        voice: bought.voice,
        sms: bought.sms,
        inbound: true,
        source: params.source,
        status: "active",
        providerSid: bought.providerSid,
        region: bought.region,
        locality: bought.locality,
        createdBy: params.actor,
        createdAt: params.now,
        updatedAt: params.now,
      })
      .returning();
    getLogger("numbers").info({ numberId: row!.id, source: params.source }, "number acquired");
    return toNumberView(row!);
  } catch (error) {
    if (!isUniqueViolation(error)) throw error;
    if (params.source === "purchased") {
      await provider.releasePurchased(bought.providerSid).catch((releaseError: unknown) => {
        getLogger("numbers").error({ err: releaseError }, "a purchase that lost the race for its number could not be given back");
      });
    }
    throw new AppError("NUMBER_OWNED_ELSEWHERE", `phoneNumber: ${phoneNumber} belongs to another organization`);
  }
}
