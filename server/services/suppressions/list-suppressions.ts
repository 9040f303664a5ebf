import { and, asc, desc, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { optOuts } from "@/db/schema";
import type { TListSuppressionsResponse } from "@/server/routers/suppressions/list-suppressions.schema";
import { requireSuppressionNumber } from "./suppression-number";

export const SUPPRESSIONS_PAGE_SIZE = 100;

export type ListSuppressionsParams = {
  organizationId: string;
  /** One-based. */
  page: number;
  /** A number in any format: only its entry (if any) is listed. 400 INVALID_PHONE_NUMBER when it is not a number. */
  phoneNumber?: string;
};

/** GET /suppressions: the organization's suppression list, newest first, 100 per page. */
export async function listSuppressions(db: DbOrTx, params: ListSuppressionsParams): Promise<TListSuppressionsResponse> {
  const filter = params.phoneNumber === undefined || params.phoneNumber.trim() === "" ? null : requireSuppressionNumber(params.phoneNumber, "phoneNumber");
  const rows = await db
    .select({ phoneNumber: optOuts.phoneNumber, reason: optOuts.reason, source: optOuts.source, createdAt: optOuts.createdAt })
    .from(optOuts)
    .where(and(eq(optOuts.organizationId, params.organizationId), filter ? eq(optOuts.phoneNumber, filter) : undefined))
    .orderBy(desc(optOuts.createdAt), asc(optOuts.phoneNumber))
    .limit(SUPPRESSIONS_PAGE_SIZE + 1)
    .offset((params.page - 1) * SUPPRESSIONS_PAGE_SIZE);
  return {
    suppressions: rows.slice(0, SUPPRESSIONS_PAGE_SIZE).map((row) => ({ ...row, createdAt: row.createdAt.toISOString() })),
    page: params.page,
    hasMore: rows.length > SUPPRESSIONS_PAGE_SIZE,
  };
}
