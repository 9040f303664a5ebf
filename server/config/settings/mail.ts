import { settingsOf } from "./setting";
import { text, urlWithProtocols } from "./value-types";

/** Invitation email over SMTP (server/services/messaging/email-transport.ts). Listed in the docs with sign-in. */
const setting = settingsOf("Dashboard sign-in and email");

export const smtpSettings = {
  SMTP_URL: setting(urlWithProtocols(["smtp:", "smtps:"], "smtp:// or smtps://").optional(), {
    description: "Mail server for invitations, e.g. `smtps://user:pass@mail.example:465` (with `MAIL_FROM`).",
    default: "unset: invitation links are shown to the inviting admin and logged",
    secret: true,
  }),
  MAIL_FROM: setting(text().optional(), {
    description: "Sender of invitation emails, e.g. `Console <no-reply@example.com>` (with `SMTP_URL`).",
  }),
};
