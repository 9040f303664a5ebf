import { settingsOf } from "./setting";
import { oneOf, wholeNumber } from "./value-types";

/** Email and SMS steps of sequences: their credits, the SMS transport and opt-out keywords (docs/sequences.md). */
const setting = settingsOf("Sequences: email and SMS");

export const sequenceSettings = {
  SEQUENCE_EMAIL_CREDITS: setting(wholeNumber(0, 1000).default(1), {
    description: "Credits charged per email an EMAIL step sends (to the ledger, with the agent).",
    default: "`1`",
    sameOnEveryInstance: true,
  }),
  SEQUENCE_SMS_SEGMENT_CREDITS: setting(wholeNumber(0, 1000).default(1), {
    description: "Credits charged per SMS segment an SMS step sends (a 2-segment message costs twice this).",
    default: "`1`",
    sameOnEveryInstance: true,
  }),
  SMS_TRANSPORT: setting(oneOf(["auto", "twilio", "simulator"] as const).default("auto"), {
    description:
      "How SMS steps are sent: `twilio` (the account of `TWILIO_ACCOUNT_SID`/`TWILIO_AUTH_TOKEN`, callbacks verified against `PUBLIC_BASE_URL`), `simulator` (the project's Twilio simulator, started in this process on loopback; nothing leaves the machine), `auto`: `twilio` when `TWILIO_ACCOUNT_SID` is set, else `simulator`.",
    default: "`auto`",
    sameOnEveryInstance: true,
  }),
  SMS_OPT_OUT_HANDLING: setting(oneOf(["twilio-default", "advanced-opt-out", "app"] as const).default("twilio-default"), {
    description:
      "Who answers STOP, START and HELP texts to the agents' numbers, so a contact gets exactly one answer: `twilio-default` (Twilio's default opt-out handling of long codes and toll-free numbers answers STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT, START, YES, UNSTOP, HELP and INFO itself; the app answers only the other keywords it reads, such as `OPT OUT`), `advanced-opt-out` (the numbers are in a Messaging Service with Advanced Opt-Out: Twilio answers the keywords it marks with `OptOutType`, the app the others), `app` (Twilio answers none: a short code outside a Messaging Service, or opt-out handling turned off by Twilio; the app answers every keyword). A keyword Twilio marks with `OptOutType` is never answered twice.",
    default: "`twilio-default`",
    sameOnEveryInstance: true,
  }),
};
