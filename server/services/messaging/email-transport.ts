import nodemailer, { type Transporter } from "nodemailer";
import { mailSettings } from "@/server/config/settings";
import { processSingleton } from "@/server/runtime/process-singleton";

export type OutgoingEmail = {
  from: string;
  replyTo: string | null;
  to: string;
  subject: string;
  text: string;
  html: string;
  /** `<id@host>`: fixed before the first attempt, so a retry carries the same Message-ID. */
  messageId: string;
  headers: Record<string, string>;
};

export type EmailSendResult = { accepted: boolean; response: string };

/**
 * Where sequence emails go: `smtp` (nodemailer over SMTP_URL, the invitation mailer's setting) or `outbox` (the
 * embedded default: nothing is sent; the rendered message stays on its record and the console's Outbox shows it).
 */
export type EmailTransport = { kind: "smtp" | "outbox"; send(email: OutgoingEmail): Promise<EmailSendResult> };

/** An SMTP refusal or outage, with the server's reply (or the connection error) and whether a retry may help. */
export class EmailSendError extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    readonly code: string | null,
  ) {
    super(message);
    this.name = "EmailSendError";
  }
}

export function createSmtpTransport(smtpUrl: string): EmailTransport {
  const transporter: Transporter = nodemailer.createTransport(smtpUrl);
  return {
    kind: "smtp",
    async send(email) {
      try {
        const info = await transporter.sendMail({
          from: email.from,
          to: email.to,
          ...(email.replyTo ? { replyTo: email.replyTo } : {}),
          subject: email.subject,
          text: email.text,
          html: email.html,
          messageId: email.messageId,
          headers: email.headers,
        });
        if (info.rejected.length > 0) throw new EmailSendError(`The mail server refused ${email.to}: ${info.response}`, true, null);
        return { accepted: true, response: String(info.response ?? "") };
      } catch (error) {
        if (error instanceof EmailSendError) throw error;
        const smtp = error as { responseCode?: number; response?: string; code?: string; message?: string };
        // 5xx: the server refused for good (a retry gets the same answer); anything else (4xx, no connection) may pass later.
        const permanent = typeof smtp.responseCode === "number" && smtp.responseCode >= 500;
        const reason = smtp.response ?? smtp.message ?? String(error);
        throw new EmailSendError(`SMTP: ${reason}`.slice(0, 500), permanent, smtp.responseCode ? String(smtp.responseCode) : (smtp.code ?? null));
      }
    },
  };
}

export const outboxTransport: EmailTransport = {
  kind: "outbox",
  send: async () => ({ accepted: true, response: "kept in the local outbox (no SMTP_URL)" }),
};

/** Process-wide (server/runtime/process-singleton.ts): the transport of the current SMTP_URL. */
const holder = () => processSingleton("sequenceMailer", () => ({ current: undefined as { url: string | null; transport: EmailTransport } | undefined }));

/** The process's email transport: SMTP with `SMTP_URL`, else the outbox (read when first needed, cached per URL). */
export function getEmailTransport(): EmailTransport {
  const url = mailSettings()?.smtpUrl ?? null;
  const mailer = holder();
  if (!mailer.current || mailer.current.url !== url) {
    mailer.current = { url, transport: url ? createSmtpTransport(url) : outboxTransport };
  }
  return mailer.current.transport;
}
