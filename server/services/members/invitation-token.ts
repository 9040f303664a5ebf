import { createHash, randomBytes } from "node:crypto";
import { appBaseUrl } from "@/server/config/settings";

/** An invitation link is valid for 7 days after it was (re)sent. */
export const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

/** 256 random bits, base64url (43 characters). Only its SHA-256 is stored. */
export function newInvitationToken(): { token: string; tokenHash: string } {
  const token = randomBytes(32).toString("base64url");
  return { token, tokenHash: hashInvitationToken(token) };
}

export function hashInvitationToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function invitationUrl(token: string): string {
  return `${appBaseUrl().replace(/\/+$/, "")}/invite/${token}`;
}
