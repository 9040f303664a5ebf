import { settingsOf } from "./setting";
import { httpUrl, text } from "./value-types";

/**
 * Telnyx, the second carrier (docs/carriers.md "Telnyx"): SMS of the numbers whose carrier is `telnyx`, inbound SMS
 * and delivery webhooks (Ed25519-signed), and numbers searched and ordered through Telnyx. Unset `TELNYX_API_KEY`: the
 * project's Telnyx simulator, started in this process on loopback (server/carriers/telnyx/telnyx-account.ts).
 */
const setting = settingsOf("Telnyx (SMS and numbers)");

export const telnyxSettings = {
  TELNYX_API_KEY: setting(text().optional(), {
    description: "The Telnyx API key (`KEY…`, Mission Control → API Keys). Unset: the embedded Telnyx simulator carries the Telnyx numbers' SMS and number orders; nothing leaves the machine.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  TELNYX_PUBLIC_KEY: setting(text().optional(), {
    description:
      "The account's webhook public key, base64 as Mission Control shows it (Keys & Credentials → Public Key): every Telnyx webhook's `telnyx-signature-ed25519` over `telnyx-timestamp|body` is verified with it (five minutes' tolerance; an event id seen before is refused). Required with `TELNYX_API_KEY`.",
    sameOnEveryInstance: true,
  }),
  TELNYX_API_BASE_URL: setting(httpUrl().optional(), {
    description: "Telnyx's REST base (tests point it at a simulator).",
    default: "`https://api.telnyx.com/v2`",
    sameOnEveryInstance: true,
  }),
  TELNYX_MESSAGING_PROFILE_ID: setting(text().optional(), {
    description: "The Messaging Profile numbers ordered through Telnyx join (its inbound webhook must be `PUBLIC_BASE_URL/api/carriers/telnyx/messages/inbound`).",
    sameOnEveryInstance: true,
  }),
  TELNYX_CONNECTION_ID: setting(text().optional(), {
    description: "The Call Control Application (connection) numbers ordered through Telnyx are assigned to.",
    sameOnEveryInstance: true,
  }),
};
