import type { AuthActor } from "@/server/auth/authenticate";

/** How a suppression records who added it: `apiKey:<keyId>` or `user:<userId>`. */
export function suppressionActor(actor: AuthActor): string {
  return actor.type === "apiKey" ? `apiKey:${actor.keyId}` : `user:${actor.userId}`;
}
