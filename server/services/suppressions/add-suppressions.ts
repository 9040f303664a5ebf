import { sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { optOuts, type SuppressionSource } from "@/db/schema";
import type { TAddSuppressionsResponse } from "@/server/routers/suppressions/add-suppressions.schema";
import { MAX_PHONE_NUMBER_LENGTH } from "@/server/schemas/limits";
import { toSafeText } from "@/server/schemas/text";
import { suppressionNumberOf } from "./suppression-number";

export type AddSuppressionsParams = {
  organizationId: string;
  /** As sent: each item is validated on its own (a bad one is rejected alone). */
  phoneNumbers: readonly unknown[];
  reason: string | null;
  source: Exclude<SuppressionSource, "call">;
  /** `apiKey:<id>` / `user:<id>`. */
  createdBy: string;
  now: Date;
};

function quoted(value: unknown): string {
  if (typeof value === "string") return toSafeText(value.trim().slice(0, MAX_PHONE_NUMBER_LENGTH));
  return typeof value === "number" ? String(value).slice(0, MAX_PHONE_NUMBER_LENGTH) : "";
}

/**
 * POST /suppressions: puts numbers (any format) on the organization's suppression list. Every valid item is either
 * `added` or `alreadySuppressed` (on the list before, or repeated earlier in the same request); the others are
 * rejected by index with INVALID_PHONE_NUMBER. An existing entry keeps its source, reason and date.
 * One statement for the whole request (the numbers travel as one JSON array parameter, so 10,000 rows stay under PostgreSQL's
 * parameter limit); concurrent requests with the same numbers each count a number as added at most once in total.
 */
export async function addSuppressions(db: DbOrTx, params: AddSuppressionsParams): Promise<TAddSuppressionsResponse> {
  const rejected: TAddSuppressionsResponse["rejected"] = [];
  const distinct = new Set<string>();
  let valid = 0;
  params.phoneNumbers.forEach((value, index) => {
    const e164 = suppressionNumberOf(value);
    if (!e164) {
      rejected.push({ index, phoneNumber: quoted(value), reason: "INVALID_PHONE_NUMBER", error: "Not a valid phone number (a string of at most 64 characters)." });
      return;
    }
    valid += 1;
    distinct.add(e164);
  });
  let added = 0;
  if (distinct.size > 0) {
    const inserted = await db.execute<{ phone_number: string }>(sql`
      insert into ${optOuts} (organization_id, phone_number, source, reason, created_by, created_at)
      select ${params.organizationId}, number, ${params.source}, ${params.reason}, ${params.createdBy}, ${params.now.toISOString()}::timestamptz
      from jsonb_array_elements_text(${JSON.stringify([...distinct])}::jsonb) as number
      on conflict (organization_id, phone_number) do nothing
      returning phone_number`);
    added = inserted.length;
  }
  return { added, alreadySuppressed: valid - added, rejected };
}
