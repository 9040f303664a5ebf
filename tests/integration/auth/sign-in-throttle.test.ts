import { like } from "drizzle-orm";
import { beforeEach, describe, expect, it, vi } from "vitest";
import { rateLimits } from "@/db/schema";
import { signInErrorText } from "@/server/auth/sign-in-errors";
import { SIGN_IN_LIMITS } from "@/server/auth/sign-in-throttle";
import { useTestDb } from "../../helpers/db";
import { captureLogs } from "../../helpers/logs";
import { signInWithCredentials, useNextAuthEnv } from "../../helpers/next-auth";
import { createPasswordUser } from "./helpers";

const db = useTestDb();

beforeEach(() => {
  useNextAuthEnv();
  return () => vi.unstubAllEnvs();
});

let ipCounter = 0;
/** A fresh client address per test, so the per-IP counter of one test never locks another. */
const freshIp = () => `192.0.2.${++ipCounter}`;

describe("password sign-in throttling", () => {
  it("with RATE_LIMIT_STORE=postgres the counters and the lock live in the shared rate_limits table", async () => {
    vi.stubEnv("RATE_LIMIT_STORE", "postgres");
    const user = await createPasswordUser(db, { password: "shared lock" });
    for (let i = 0; i < SIGN_IN_LIMITS.account.failures; i++) await signInWithCredentials({ email: user.email, password: "nope", ip: freshIp() });
    expect((await signInWithCredentials({ email: user.email, password: "shared lock", ip: freshIp() })).error).toBe("TooManyAttempts:15");
    const rows = await db.select().from(rateLimits).where(like(rateLimits.key, "sign-in-fail-account:%"));
    expect(rows.some((row) => row.points > SIGN_IN_LIMITS.account.failures && row.expire && row.expire.getTime() > Date.now() + 14 * 60_000)).toBe(true);
  });

  it("15 wrong passwords lock the account: the right one is refused too, with a clear message and a log line without the password", async () => {
    const user = await createPasswordUser(db, { password: "the right password" });
    const logs = captureLogs();
    const errors: Array<string | null> = [];
    for (let i = 0; i < 15; i++) {
      const attempt = await signInWithCredentials({ email: user.email, password: `wrong guess ${i}`, ip: freshIp() });
      expect(attempt.sessionCookie).toBeNull();
      errors.push(attempt.error);
    }
    // Counted per account across addresses: the 5th wrong password locks it.
    expect(errors.slice(0, SIGN_IN_LIMITS.account.failures - 1)).toEqual(Array(SIGN_IN_LIMITS.account.failures - 1).fill("CredentialsSignin"));
    expect(new Set(errors.slice(SIGN_IN_LIMITS.account.failures - 1))).toEqual(new Set(["TooManyAttempts:15"]));
    const right = await signInWithCredentials({ email: user.email, password: "the right password", ip: freshIp() });
    expect(right).toEqual({ sessionCookie: null, error: "TooManyAttempts:15" });
    expect(signInErrorText(right.error)).toBe("Too many attempts, try again in 15 minutes.");

    const warnings = logs.lines().filter((line) => line.level === "warn" && line.component === "auth");
    expect(warnings.some((line) => line.msg.includes("locked") && line.account === user.email)).toBe(true);
    expect(warnings.some((line) => line.msg.includes("refused") && line.account === user.email)).toBe(true);
    expect(logs.text()).not.toMatch(/wrong guess|the right password/);
  });

  it("per IP: many accounts guessed from one address lock that address, not the accounts elsewhere", async () => {
    const ip = freshIp();
    for (let i = 0; i < SIGN_IN_LIMITS.ip.failures; i++) {
      await signInWithCredentials({ email: `nobody-${i}-${Date.now()}@guess.example`, password: "guess", ip });
    }
    const user = await createPasswordUser(db, { password: "correct horse" });
    expect(await signInWithCredentials({ email: user.email, password: "correct horse", ip })).toEqual({ sessionCookie: null, error: "TooManyAttempts:15" });
    const elsewhere = await signInWithCredentials({ email: user.email, password: "correct horse", ip: freshIp() });
    expect(elsewhere.error).toBeNull();
    expect(elsewhere.sessionCookie).not.toBeNull();
  });

  it("a correct password ends the run of failures, so occasional typos never lock anyone", async () => {
    const user = await createPasswordUser(db, { password: "typo-prone password" });
    for (let round = 0; round < 3; round++) {
      for (let i = 0; i < SIGN_IN_LIMITS.account.failures - 1; i++) {
        expect((await signInWithCredentials({ email: user.email, password: "typo", ip: freshIp() })).error).toBe("CredentialsSignin");
      }
      expect((await signInWithCredentials({ email: user.email, password: "typo-prone password", ip: freshIp() })).error).toBeNull();
    }
  });

  it("unknown accounts are throttled the same way (no hint whether an address has an account)", async () => {
    const email = `ghost-${Date.now()}@nowhere.example`;
    const errors: Array<string | null> = [];
    for (let i = 0; i < SIGN_IN_LIMITS.account.failures + 1; i++) errors.push((await signInWithCredentials({ email, password: "x", ip: freshIp() })).error);
    expect(errors.at(0)).toBe("CredentialsSignin");
    expect(errors.at(-1)).toBe("TooManyAttempts:15");
  });
});
