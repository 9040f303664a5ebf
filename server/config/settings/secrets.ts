import { decodeEncryptionKey, ENCRYPTION_KEY_FORMAT } from "@/server/crypto/key-format";
import { settingsOf } from "./setting";
import { text } from "./value-types";

/**
 * The secrets every instance of a deployment shares (generated into `$DATA_DIR` in embedded mode; production with
 * `DATABASE_URL` requires them: the cross-field rules in ../env.ts).
 */
const setting = settingsOf("Secrets");

export const secretSettings = {
  NEXTAUTH_SECRET: setting(text().optional(), {
    description: "Signs dashboard sessions.",
    default: "generated into `$DATA_DIR/nextauth.secret` (embedded mode)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  APP_SECRET: setting(text().min(16, { error: "must be at least 16 characters" }).optional(), {
    description: "Signs recording links (and derives `VOICE_EVENTS_SECRET` when that is unset).",
    default: "generated into `$DATA_DIR/app.secret` (embedded mode and outside production)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  APP_ENCRYPTION_KEY: setting(text().refine((value) => decodeEncryptionKey(value) !== null, { error: `must be ${ENCRYPTION_KEY_FORMAT}` }).optional(), {
    description: "AES-256-GCM key of stored provider credentials.",
    default: "generated into `$DATA_DIR/app-encryption.key` (embedded mode and outside production)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  VOICE_EVENTS_SECRET: setting(text().optional(), {
    description: "Shared with a voice provider adapter that posts signed events to `/api/voice/events` (docs/call-engine.md).",
    default: "derived from `APP_SECRET`",
    secret: true,
    sameOnEveryInstance: true,
  }),
};
