import { eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { organizations } from "@/db/schema";
import { AppError } from "@/server/errors";
import type { TOrganizationPrivacySettings } from "@/server/routers/organizations/privacy-settings.schema";

const columns = {
  redactionCategories: organizations.redactionCategories,
  redactionPatterns: organizations.redactionPatterns,
  retentionDays: organizations.retentionDays,
  keepRecordings: organizations.keepRecordings,
};

export async function getPrivacySettings(db: DbOrTx, params: { organizationId: string }): Promise<TOrganizationPrivacySettings> {
  const [row] = await db.select(columns).from(organizations).where(eq(organizations.id, params.organizationId));
  if (!row) throw new AppError("NOT_FOUND", "Organization not found.");
  return row as TOrganizationPrivacySettings;
}

export type UpdatePrivacySettingsParams = { organizationId: string } & Partial<TOrganizationPrivacySettings>;

/**
 * Sets the given privacy settings of the (verified) organization; absent fields are left as they are. Redaction
 * applies to what is said from then on (stored transcripts are not rewritten); retention applies on the next daily run.
 */
export async function updatePrivacySettings(db: DbOrTx, params: UpdatePrivacySettingsParams): Promise<TOrganizationPrivacySettings> {
  const { organizationId, ...changes } = params;
  const set = Object.fromEntries(Object.entries(changes).filter(([, value]) => value !== undefined));
  if (Object.keys(set).length === 0) return getPrivacySettings(db, { organizationId });
  const [row] = await db.update(organizations).set(set).where(eq(organizations.id, organizationId)).returning(columns);
  if (!row) throw new AppError("NOT_FOUND", "Organization not found.");
  return row as TOrganizationPrivacySettings;
}
