import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { apiKeys } from "@/db/schema";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { CACHE_TTL_MS, findOrganizationByApiKey, revalidateApiKeys } from "@/server/services/api-keys/verify-api-key";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();

/** What another instance's revocation looks like from here: the row changes, this process's cache is not told. */
const revokeElsewhere = (keyId: string) => db.update(apiKeys).set({ revokedAt: new Date() }).where(eq(apiKeys.id, keyId));

describe("verified API key cache (revocation bound)", () => {
  it("accepts a key revoked by another instance for less than CACHE_TTL_MS after it was checked, never longer", async () => {
    const { organization } = await createTestOrganization(db);
    const key = await createApiKey(db, { organizationId: organization.id, name: "cached" });
    const checkedAt = Date.now();
    expect(await findOrganizationByApiKey(db, key.key, new Date(checkedAt))).toMatchObject({ keyId: key.id, organizationId: organization.id });
    await revokeElsewhere(key.id);
    expect(await findOrganizationByApiKey(db, key.key, new Date(checkedAt + CACHE_TTL_MS - 1))).toMatchObject({ keyId: key.id });
    expect(await findOrganizationByApiKey(db, key.key, new Date(checkedAt + CACHE_TTL_MS))).toBeNull();
  });

  it("renews the keys in use from one check for all of them, and drops the ones revoked elsewhere at once", async () => {
    const { organization } = await createTestOrganization(db);
    const live = await createApiKey(db, { organizationId: organization.id, name: "live" });
    const revoked = await createApiKey(db, { organizationId: organization.id, name: "revoked" });
    // Verified two seconds ago: trusted until three seconds from now, unless a later check renews it.
    const verifiedAt = Date.now() - 2_000;
    expect(await findOrganizationByApiKey(db, live.key, new Date(verifiedAt))).not.toBeNull();
    expect(await findOrganizationByApiKey(db, revoked.key, new Date(verifiedAt))).not.toBeNull();
    await revokeElsewhere(revoked.id);

    const passStarted = Date.now();
    const pass = await revalidateApiKeys(db);
    const passEnded = Date.now();
    expect(pass.renewed).toBeGreaterThanOrEqual(1);
    expect(pass.dropped).toBeGreaterThanOrEqual(1);

    // Dropped by the pass: refused now, well inside the TTL of its first check.
    expect(await findOrganizationByApiKey(db, revoked.key, new Date())).toBeNull();
    // Renewed: trusted past its first expiry (verifiedAt + TTL) without a lookup, shown by revoking it now...
    await revokeElsewhere(live.id);
    expect(verifiedAt + CACHE_TTL_MS).toBeLessThan(passStarted + CACHE_TTL_MS - 500);
    expect(await findOrganizationByApiKey(db, live.key, new Date(passStarted + CACHE_TTL_MS - 500))).toMatchObject({ keyId: live.id });
    // ...and never past CACHE_TTL_MS after the check that renewed it.
    expect(await findOrganizationByApiKey(db, live.key, new Date(passEnded + CACHE_TTL_MS))).toBeNull();
  });
});
