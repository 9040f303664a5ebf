import bcrypt from "bcryptjs";
import type { DbOrTx } from "@/db";
import { findUserByEmail } from "@/server/services/members/provision-oidc-user";
import { recordSignInFailure, recordSignInSuccess, retryAfterMinutes, signInLockRemainingMs } from "./sign-in-throttle";
import { getLogger } from "@/server/observability/logger";

export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 200;

export type PasswordSignInParams = { email: string; password: string; ip: string };
export type PasswordSignInResult =
  | { status: "ok"; user: { id: string; email: string; name: string; sessionVersion: number } }
  | { status: "invalid" }
  | { status: "locked"; retryAfterMinutes: number };

// Compared against when the account does not exist, so a wrong email costs the same time as a wrong password.
const DUMMY_HASH = bcrypt.hashSync("no such account", 10);

/**
 * Email + password check behind the credentials provider, throttled per account and per IP (sign-in-throttle.ts).
 * While locked out the password is not even compared. Log lines name the account and IP, never the password.
 */
export async function signInWithPassword(db: DbOrTx, params: PasswordSignInParams): Promise<PasswordSignInResult> {
  const email = params.email.trim().toLowerCase();
  const subject = { email, ip: params.ip };
  const lockedMs = await signInLockRemainingMs(subject);
  if (lockedMs > 0) {
    getLogger("auth").warn({ account: email, ip: params.ip, minutesLeft: retryAfterMinutes(lockedMs) }, "password sign-in refused: too many attempts");
    return { status: "locked", retryAfterMinutes: retryAfterMinutes(lockedMs) };
  }
  const user = email ? await findUserByEmail(db, email) : null;
  const password = params.password.length <= PASSWORD_MAX_LENGTH ? params.password : "";
  // Users created by SSO have no password and cannot sign in this way.
  const matches = (await bcrypt.compare(password, user?.passwordHash ?? DUMMY_HASH)) && !!user?.passwordHash && password.length > 0;
  if (!matches || !user) {
    const nowLockedMs = await recordSignInFailure(subject);
    if (nowLockedMs > 0) {
      getLogger("auth").warn({ account: email, ip: params.ip, lockedMinutes: retryAfterMinutes(nowLockedMs) }, "password sign-in locked: too many wrong passwords");
      return { status: "locked", retryAfterMinutes: retryAfterMinutes(nowLockedMs) };
    }
    return { status: "invalid" };
  }
  await recordSignInSuccess(subject);
  return { status: "ok", user: { id: user.id, email: user.email, name: user.name, sessionVersion: user.sessionVersion } };
}
