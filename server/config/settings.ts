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

function positiveIntegerSetting(name: string, fallback: number): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new Error(`${name} must be a positive whole number, got "${raw}".`);
  }
  return Number(raw);
}

/** Largest request body `/api/v1` reads, in bytes, except bulk enrollment (default 256 kB). */
export function apiBodyLimitBytes(): number {
  return positiveIntegerSetting("API_BODY_LIMIT_BYTES", 256 * 1024);
}

/** Largest body of `POST /agents/{agentId}/schedule/sequences` (bulk enrollment, up to 1,000 contacts), default 2 MB. */
export function apiBulkBodyLimitBytes(): number {
  return positiveIntegerSetting("API_BULK_BODY_LIMIT_BYTES", 2 * 1024 * 1024);
}

/** Requests per rolling second one client address may make without a valid API key (default 20). */
export function apiUnauthenticatedRateLimit(): number {
  return positiveIntegerSetting("API_UNAUTHENTICATED_RATE_LIMIT", 20);
}

/** Where the per-key API rate limit is kept: this process, or a table shared by every instance. */
export function rateLimitStore(): "memory" | "postgres" {
  return process.env.RATE_LIMIT_STORE === "postgres" ? "postgres" : "memory";
}

/**
 * How many reverse proxies in front of the app to believe in `X-Forwarded-For` (`TRUST_PROXY`): unset, `false` or
 * `0` = none (the client is the socket's peer), `true` = 1, or a number of hops.
 */
export function trustedProxyHops(): number {
  const raw = process.env.TRUST_PROXY?.trim().toLowerCase();
  if (!raw || raw === "false" || raw === "0" || raw === "off") return 0;
  if (raw === "true" || raw === "on") return 1;
  if (/^\d+$/.test(raw)) return Number(raw);
  throw new Error(`TRUST_PROXY must be true, false or a number of proxies, got "${process.env.TRUST_PROXY}".`);
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
