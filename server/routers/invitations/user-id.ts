import type { AuthContext } from "@/server/auth/authenticate";
import { AppError } from "@/server/errors";

/** The signed-in user behind a session-only procedure (requireRole(…, { sessionOnly: true }) already refused API keys). */
export function userIdOf(auth: AuthContext): string {
  if (auth.actor.type !== "user") throw new AppError("FORBIDDEN", "This operation is only available to signed-in users.");
  return auth.actor.userId;
}
