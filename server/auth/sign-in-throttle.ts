import { authLimiter, limiterKey } from "./limiters";

/**
 * Back-off for password sign-in (and for the current-password check of a password change), per account and per client
 * IP, on rate-limiter-flexible counters:
 * - account (the email as typed, lowercased, whether or not such an account exists): 5 wrong passwords within 15 minutes
 *   lock it for 15 minutes;
 * - IP: 20 wrong passwords within 15 minutes (any accounts) lock the address for 15 minutes.
 * Each further lockout within 24 hours doubles the lock (15 min, 30 min, 1 h, … at most 24 h). While locked, every attempt is
 * refused before the password is looked at, so a correct password does not get in either. A correct password clears
 * the account's failure count (not the IP's, nor a lock).
 */
export const SIGN_IN_LIMITS = {
  account: { failures: 5, windowSeconds: 15 * 60, firstLockSeconds: 15 * 60 },
  ip: { failures: 20, windowSeconds: 15 * 60, firstLockSeconds: 15 * 60 },
} as const;
const MAX_LOCK_SECONDS = 24 * 3600;
const LOCKOUT_MEMORY_SECONDS = 24 * 3600;

type Dimension = keyof typeof SIGN_IN_LIMITS;

export type SignInSubject = { email: string; ip: string };

function counters(dimension: Dimension) {
  const limits = SIGN_IN_LIMITS[dimension];
  return {
    limits,
    failures: authLimiter({ keyPrefix: `sign-in-fail-${dimension}`, points: limits.failures, duration: limits.windowSeconds }),
    lockouts: authLimiter({ keyPrefix: `sign-in-lockouts-${dimension}`, points: 1000, duration: LOCKOUT_MEMORY_SECONDS }),
  };
}

function keysOf(subject: SignInSubject): Record<Dimension, string> {
  return { account: limiterKey(subject.email.trim().toLowerCase()), ip: limiterKey(subject.ip) };
}

/** How long the subject is still locked out (the longer of account and IP), or 0. */
export async function signInLockRemainingMs(subject: SignInSubject): Promise<number> {
  const keys = keysOf(subject);
  let remaining = 0;
  for (const dimension of ["account", "ip"] as const) {
    const { failures, limits } = counters(dimension);
    const state = await failures.get(keys[dimension]);
    // A lock is a block: consumed points above the limit until it ends.
    if (state && state.consumedPoints > limits.failures) remaining = Math.max(remaining, state.msBeforeNext);
  }
  return remaining;
}

/** Counts a wrong password; returns how long the subject is locked out now (0 when not locked). */
export async function recordSignInFailure(subject: SignInSubject): Promise<number> {
  const keys = keysOf(subject);
  let lockedMs = 0;
  for (const dimension of ["account", "ip"] as const) {
    const { failures, lockouts, limits } = counters(dimension);
    const state = await failures.penalty(keys[dimension], 1);
    if (state.consumedPoints < limits.failures) continue;
    const lockout = await lockouts.penalty(keys[dimension], 1);
    const seconds = Math.min(limits.firstLockSeconds * 2 ** (lockout.consumedPoints - 1), MAX_LOCK_SECONDS);
    await failures.block(keys[dimension], seconds);
    lockedMs = Math.max(lockedMs, seconds * 1000);
  }
  return lockedMs;
}

/** A correct password: the account's run of failures is over. */
export async function recordSignInSuccess(subject: SignInSubject): Promise<void> {
  const { failures, limits } = counters("account");
  const key = keysOf(subject).account;
  const state = await failures.get(key);
  if (state && state.consumedPoints <= limits.failures) await failures.delete(key);
}

export function retryAfterMinutes(ms: number): number {
  return Math.max(1, Math.ceil(ms / 60_000));
}
