import path from "node:path";

/** Where embedded-mode state lives: Postgres data, recordings, generated secrets, the demo credentials. */
export function dataDir(): string {
  return path.resolve(process.env.DATA_DIR ?? "./.data");
}

export function appPort(): number {
  return Number(process.env.PORT ?? 3000);
}

export function appBaseUrl(): string {
  return process.env.APP_BASE_URL ?? process.env.NEXTAUTH_URL ?? `http://localhost:${appPort()}`;
}

/** Production mode: an external database is configured (used for the SSRF guard and credential login defaults). */
export function isEmbeddedMode(): boolean {
  return !process.env.DATABASE_URL || process.env.EMBEDDED_MODE === "1";
}

/**
 * `HOST`: the address the HTTP server listens on. Embedded mode (a demo with generated credentials) listens on
 * 127.0.0.1 only unless `HOST` says otherwise (`HOST=0.0.0.0` to reach it from other machines); with `DATABASE_URL`
 * (production) every interface (undefined: Node's dual-stack default).
 */
export function listenHost(): string | undefined {
  const host = process.env.HOST?.trim();
  if (host) return host;
  return isEmbeddedMode() ? "127.0.0.1" : undefined;
}

/**
 * `TRUST_PROXY=1`: the app runs behind a reverse proxy that sets `X-Forwarded-For`; otherwise the client address is
 * the TCP peer and any `X-Forwarded-For` a client sends is replaced (server/http/node-server.ts).
 */
export function trustProxy(): boolean {
  return ["1", "true", "on"].includes(process.env.TRUST_PROXY?.toLowerCase() ?? "");
}

/**
 * `OPERATOR_EMAILS` (comma-separated): people who run this server. Operators see every organization's background-job
 * runs, system runs (crons, watchdog) and unredacted step outputs (docs/security.md "Roles"). Compared lowercased.
 */
export function operatorEmails(): ReadonlySet<string> {
  return new Set(
    (process.env.OPERATOR_EMAILS ?? "")
      .split(",")
      .map((email) => email.trim().toLowerCase())
      .filter(Boolean),
  );
}

export function isOperatorEmail(email: string | null | undefined): boolean {
  return !!email && operatorEmails().has(email.trim().toLowerCase());
}

/** `SMTP_URL` + `MAIL_FROM`: invitations are emailed (nodemailer); without both, the link is shown to the inviting admin. */
export function mailSettings(): { smtpUrl: string; from: string } | null {
  const smtpUrl = process.env.SMTP_URL?.trim();
  const from = process.env.MAIL_FROM?.trim();
  return smtpUrl && from ? { smtpUrl, from } : null;
}
