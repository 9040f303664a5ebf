import bcrypt from "bcryptjs";
import { inArray } from "drizzle-orm";
import { describe, expect, it, vi } from "vitest";
import { users } from "@/db/schema";
import { isEmbeddedMode, listenHost } from "@/server/config/settings";
import { DEMO_USERS, upsertDemoUsers } from "@/server/seed/demo-seed";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const FORMER_FIXED_PASSWORDS = ["demo-admin-password", "demo-support-password", "demo-member-password"];

describe("demo credentials", () => {
  it("are random per seed: a re-seed never resets an install to a known password, and ends the old sessions", async () => {
    const first = await upsertDemoUsers(db);
    const second = await upsertDemoUsers(db);
    expect(first.map((user) => user.email)).toEqual(DEMO_USERS.map((user) => user.email));
    const passwords = [...first, ...second].map((user) => user.password);
    expect(new Set(passwords).size).toBe(passwords.length);
    for (const password of passwords) {
      expect(password.length).toBeGreaterThanOrEqual(16);
      expect(FORMER_FIXED_PASSWORDS).not.toContain(password);
    }
    const rows = await db.select().from(users).where(inArray(users.email, DEMO_USERS.map((user) => user.email)));
    for (const [index, user] of second.entries()) {
      const row = rows.find((r) => r.id === user.id)!;
      expect(await bcrypt.compare(user.password, row.passwordHash!)).toBe(true);
      expect(await bcrypt.compare(first[index]!.password, row.passwordHash!)).toBe(false);
    }
    // Each re-seed is a password change: sessions issued before it end.
    const versions = rows.map((row) => row.sessionVersion);
    await upsertDemoUsers(db);
    const after = await db.select().from(users).where(inArray(users.email, DEMO_USERS.map((user) => user.email)));
    expect(after.map((row) => row.sessionVersion)).toEqual(versions.map((version) => version + 1));
  });
});

describe("listen address", () => {
  it("is 127.0.0.1 in embedded mode unless HOST says otherwise; every interface with DATABASE_URL", () => {
    vi.stubEnv("EMBEDDED_MODE", "1");
    vi.stubEnv("HOST", "");
    expect(isEmbeddedMode()).toBe(true);
    expect(listenHost()).toBe("127.0.0.1");
    vi.stubEnv("HOST", "0.0.0.0");
    expect(listenHost()).toBe("0.0.0.0");
    vi.stubEnv("EMBEDDED_MODE", "");
    vi.stubEnv("HOST", "");
    expect(listenHost()).toBeUndefined();
    vi.unstubAllEnvs();
  });
});
