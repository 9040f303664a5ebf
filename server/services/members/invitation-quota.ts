import { RateLimiterRes } from "rate-limiter-flexible";
import { authLimiter, limiterKey } from "@/server/auth/limiters";
import { AppError } from "@/server/errors";

/** Links issued (invitations and resends) per organization per hour: enough for onboarding a team, not for spamming. */
export const INVITATIONS_PER_HOUR = 30;

/** Raises RATE_LIMITED when the organization has issued INVITATIONS_PER_HOUR links within the last hour. */
export async function consumeInvitationQuota(organizationId: string): Promise<void> {
  const limiter = authLimiter({ keyPrefix: "invitations-org", points: INVITATIONS_PER_HOUR, duration: 3600 });
  try {
    await limiter.consume(limiterKey(organizationId), 1);
  } catch (error) {
    if (!(error instanceof RateLimiterRes)) throw error;
    const minutes = Math.max(1, Math.ceil(error.msBeforeNext / 60_000));
    throw new AppError("RATE_LIMITED", `This organization sent ${INVITATIONS_PER_HOUR} invitations within the hour: try again in ${minutes} minutes.`);
  }
}
