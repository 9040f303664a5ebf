import type { DbOrTx } from "@/db";
import { findLiveNumberRows, type OwnedNumber } from "@/db/queries/numbers";
import { AppError } from "@/server/errors";

export type NumberUse = "voice" | "sms" | "inbound";

export type AssertOrganizationNumbersParams = {
  organizationId: string;
  /** The field the numbers came in: a list (`phoneNumbers`, its first is reported as `phoneNumbers.0`) or, with `single`, one number. */
  field: string;
  single?: boolean;
  numbers: string[];
  /** What the numbers must be able to do. */
  use: NumberUse;
};

function describe(row: OwnedNumber | undefined, use: NumberUse): string | null {
  if (!row) return "is not one of this organization's numbers: buy it or bring it on the Numbers page (docs/numbers.md)";
  if (row.status === "disputed") return "is listed by another organization too: prove it is yours with a caller-ID validation call (Numbers page) before using it";
  if (row.status === "verifying") return "is waiting for its caller-ID validation call: it can be used once the code is entered";
  if (use === "voice" && !row.voice) return "cannot place calls (no voice capability)";
  if (use === "sms" && !row.sms) return "cannot send SMS (no SMS capability)";
  if (use === "inbound" && !row.inbound) return "does not take calls (a verified caller ID is outbound only)";
  return null;
}

/**
 * Trust boundary of every pool, SMS sender and callback fallback: each number must be an active number of this
 * organization that can do `use`. Refused with the first offending field: 409 NUMBER_OWNED_ELSEWHERE when another
 * organization owns it, else 400 INVALID_REQUEST naming the field and why (not ours, disputed, no capability).
 */
export async function assertOrganizationNumbers(db: DbOrTx, params: AssertOrganizationNumbersParams): Promise<void> {
  if (params.numbers.length === 0) return;
  const rows = await findLiveNumberRows(db, params.numbers);
  for (const [index, phoneNumber] of params.numbers.entries()) {
    const field = params.single ? params.field : `${params.field}.${index}`;
    const ours = rows.find((row) => row.phoneNumber === phoneNumber && row.organizationId === params.organizationId);
    if (ours?.status === "active") {
      const problem = describe(ours, params.use);
      if (problem) throw new AppError("INVALID_REQUEST", `${field}: ${phoneNumber} ${problem}`, { issues: [{ path: field, message: problem }] });
      continue;
    }
    if (rows.some((row) => row.phoneNumber === phoneNumber && row.organizationId !== params.organizationId && row.status === "active")) {
      throw new AppError("NUMBER_OWNED_ELSEWHERE", `${field}: ${phoneNumber} belongs to another organization`, { issues: [{ path: field, message: "belongs to another organization" }] });
    }
    const problem = describe(ours, params.use)!;
    throw new AppError("INVALID_REQUEST", `${field}: ${phoneNumber} ${problem}`, { issues: [{ path: field, message: problem }] });
  }
}

/**
 * An agent's pool: every number the organization's own and able to call; with SMS steps, at least one that texts.
 * (An empty pool is allowed: the agent's calls wait until it has a number, and its page says why.)
 */
export async function assertAgentPool(db: DbOrTx, params: { organizationId: string; phoneNumbers: string[]; hasSmsSteps: boolean }): Promise<void> {
  await assertOrganizationNumbers(db, { organizationId: params.organizationId, field: "phoneNumbers", numbers: params.phoneNumbers, use: "voice" });
  if (!params.hasSmsSteps || params.phoneNumbers.length === 0) return;
  const rows = await findLiveNumberRows(db, params.phoneNumbers);
  if (!rows.some((row) => row.organizationId === params.organizationId && row.status === "active" && row.sms)) {
    const message = "none of the pool's numbers can send SMS, and the sequence has SMS steps: add a number with SMS";
    throw new AppError("INVALID_REQUEST", `phoneNumbers: ${message}`, { issues: [{ path: "phoneNumbers", message }] });
  }
}
