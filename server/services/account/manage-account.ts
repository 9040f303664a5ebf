import bcrypt from "bcryptjs";
import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { users } from "@/db/schema";
import { recordSignInFailure, recordSignInSuccess, retryAfterMinutes, signInLockRemainingMs } from "@/server/auth/sign-in-throttle";
import { isOperatorEmail } from "@/server/config/settings";
import { AppError } from "@/server/errors";

export async function getAccount(db: DbOrTx, params: { userId: string }) {
  const [user] = await db.select().from(users).where(eq(users.id, params.userId)).limit(1);
  if (!user) throw new AppError("UNAUTHORIZED", "Sign in first.");
  return { userId: user.id, email: user.email, name: user.name, hasPassword: !!user.passwordHash, operator: isOperatorEmail(user.email) };
}

export type ChangePasswordParams = { userId: string; currentPassword: string; newPassword: string; ip: string };

/**
 * Sets a new password after checking the current one (wrong guesses count towards the sign-in lockout of the account
 * and IP: RATE_LIMITED while locked, INVALID_REQUEST for a wrong one). Ends every session of the person, this one
 * included: the console signs in again with the new password. CONFLICT for single sign-on accounts (no password here).
 */
export async function changePassword(db: DbOrTx, params: ChangePasswordParams) {
  const [user] = await db.select().from(users).where(eq(users.id, params.userId)).limit(1);
  if (!user) throw new AppError("UNAUTHORIZED", "Sign in first.");
  if (!user.passwordHash) throw new AppError("CONFLICT", "You sign in with single sign-on: change your password at your identity provider.");
  const subject = { email: user.email, ip: params.ip };
  const lockedMs = await signInLockRemainingMs(subject);
  if (lockedMs > 0) throw new AppError("RATE_LIMITED", `Too many attempts, try again in ${retryAfterMinutes(lockedMs)} minutes.`);
  if (!(await bcrypt.compare(params.currentPassword, user.passwordHash))) {
    const nowLockedMs = await recordSignInFailure(subject);
    if (nowLockedMs > 0) throw new AppError("RATE_LIMITED", `Too many attempts, try again in ${retryAfterMinutes(nowLockedMs)} minutes.`);
    throw new AppError("INVALID_REQUEST", "The current password is wrong.");
  }
  await recordSignInSuccess(subject);
  const passwordHash = await bcrypt.hash(params.newPassword, 10);
  await db
    .update(users)
    .set({ passwordHash, sessionVersion: sql`${users.sessionVersion} + 1` })
    .where(eq(users.id, user.id));
  return { changed: true, email: user.email };
}
