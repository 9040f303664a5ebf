import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { organizations } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { TOrganizationCallingSettings } from "@/server/routers/organizations/calling-settings.schema";

const columns = { requireConsent: organizations.requireConsent, maxConcurrentCalls: organizations.maxConcurrentCalls };

export async function getCallingSettings(db: DbOrTx, params: { organizationId: string }): Promise<TOrganizationCallingSettings> {
  const [row] = await db.select(columns).from(organizations).where(eq(organizations.id, params.organizationId));
  if (!row) throw new AppError("NOT_FOUND", "Organization not found.");
  return row;
}

export type UpdateCallingSettingsParams = { organizationId: string } & Partial<TOrganizationCallingSettings>;

/** Sets the given settings of the (verified) organization; absent fields are left as they are. */
export async function updateCallingSettings(db: DbOrTx, params: UpdateCallingSettingsParams): Promise<TOrganizationCallingSettings> {
  const { organizationId, ...changes } = params;
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  if (Object.keys(set).length === 0) return getCallingSettings(db, { organizationId });
  const [row] = await db.update(organizations).set(set).where(eq(organizations.id, organizationId)).returning(columns);
  if (!row) throw new AppError("NOT_FOUND", "Organization not found.");
  return row;
}
