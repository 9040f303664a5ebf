import { settingsOf } from "./setting";
import { flag } from "./value-types";

/** Outgoing webhooks' address guard (server/services/webhooks/address-guard.ts, docs/webhooks.md). */
const setting = settingsOf("Webhooks");

export const webhookSettings = {
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: setting(flag().default(false), {
    description: "`1`: webhook URLs may also reach private/unique-local addresses (self-hosted receivers on an internal network). Link-local/metadata stay refused.",
    default: "off (production refuses loopback, private and link-local addresses)",
    sameOnEveryInstance: true,
  }),
};
