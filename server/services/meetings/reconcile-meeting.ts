import { eq, sql } from "drizzle-orm";
import type { Db } from "@/db";
import { findCall } from "@/db/queries/calls";
import { calls, meetings, type CrmSchedulingDetails } from "@/db/schema";
import { openProviderClient } from "@/server/services/calendar/provider-connection";

export type ReconcileMeetingResult =
  | { outcome: "updated"; status: "booked" | "cancelled" }
  | { outcome: "unchanged"; status: "booked" | "cancelled" }
  | { outcome: "skipped"; reason: "NO_MEETING" | "NOT_CONNECTED" | "MISSING_AT_PROVIDER" };

/**
 * Brings the conversation's stored meeting metadata (`crmSchedulingDetails.status`, `cancelledAt`, and our meeting
 * row) in line with the provider, the source of truth. Runs asynchronously after a cancel (Inngest), never inside
 * the API request. Idempotent. Provider failures are thrown so the caller (an Inngest step) retries.
 */
export async function reconcileMeetingStatus(db: Db, params: { callId: string; now?: Date; baseUrl?: string }): Promise<ReconcileMeetingResult> {
  const call = await findCall(db, { callId: params.callId, organizationId: null });
  const bookingUid = call?.crmSchedulingDetails?.bookingUid;
  if (!call || !bookingUid) return { outcome: "skipped", reason: "NO_MEETING" };
  const opened = await openProviderClient(db, { organizationId: call.organizationId, baseUrl: params.baseUrl });
  if (!opened) return { outcome: "skipped", reason: "NOT_CONNECTED" };
  const record = await opened.client.getMeeting(bookingUid);
  if (!record) return { outcome: "skipped", reason: "MISSING_AT_PROVIDER" };

  const status = record.status === "cancelled" ? "cancelled" : "booked";
  if (call.crmSchedulingDetails.status === status) return { outcome: "unchanged", status };
  const cancelledAt = status === "cancelled" ? new Date(record.cancelledAt ?? params.now ?? new Date()) : null;
  const patch: CrmSchedulingDetails = { status, ...(cancelledAt ? { cancelledAt: cancelledAt.toISOString() } : {}) };
  await db.transaction(async (tx) => {
    // Merge, so fields written meanwhile by others are kept; a re-booked meeting drops its cancelledAt.
    await tx
      .update(calls)
      .set({
        crmSchedulingDetails: sql`(${calls.crmSchedulingDetails} - 'cancelledAt') || ${JSON.stringify(patch)}::jsonb`,
        updatedAt: new Date(),
      })
      .where(eq(calls.id, call.id));
    await tx.update(meetings).set({ status, cancelledAt, updatedAt: new Date() }).where(eq(meetings.callId, call.id));
  });
  return { outcome: "updated", status };
}
