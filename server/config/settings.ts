import { getConfig } from "./env";

/**
 * Settings derived from the configuration (server/config/env.ts, which validates the settings declared in server/config/settings/):
 * small accessors for what several modules need, with the defaults that depend on other settings.
 */

/** Where embedded-mode state lives: Postgres data, recordings, generated secrets, the demo credentials. */
export function dataDir(): string {
  return getConfig().DATA_DIR;
}

export function appPort(): number {
  return getConfig().PORT;
}

export function appBaseUrl(): string {
  const config = getConfig();
  return config.APP_BASE_URL ?? config.NEXTAUTH_URL ?? `http://localhost:${config.PORT}`;
}

/** Embedded mode: no external database is configured, or `npm start` started the embedded one (SSRF guard, sign-in defaults). */
export function isEmbeddedMode(): boolean {
  const config = getConfig();
  return !config.DATABASE_URL || config.EMBEDDED_MODE;
}

/** Outside production, secrets may be generated into $DATA_DIR (embedded mode, `npm run dev`, tests). */
export function mayGenerateSecrets(): boolean {
  return isEmbeddedMode() || getConfig().NODE_ENV !== "production";
}

/** Largest request body `/api/v1` reads, in bytes, except bulk enrollment (default 256 kB). */
export function apiBodyLimitBytes(): number {
  return getConfig().API_BODY_LIMIT_BYTES;
}

/** Largest body of `POST /agents/{agentId}/schedule/sequences` (bulk enrollment, up to 1,000 contacts), default 2 MB. */
export function apiBulkBodyLimitBytes(): number {
  return getConfig().API_BULK_BODY_LIMIT_BYTES;
}

/** Requests per rolling second one client address may make without a valid API key (default 20). */
export function apiUnauthenticatedRateLimit(): number {
  return getConfig().API_UNAUTHENTICATED_RATE_LIMIT;
}

/** Largest body of the console's `/api/trpc` requests (default 2 MB). */
export function trpcBodyLimitBytes(): number {
  return getConfig().TRPC_BODY_LIMIT_BYTES;
}

/** Largest body of `/api/inngest` requests (default 32 MB, Inngest's largest run state). */
export function inngestBodyLimitBytes(): number {
  return getConfig().INNGEST_BODY_LIMIT_BYTES;
}

/** Largest body of every other route Next.js serves: sign-in, voice callbacks, pages (default 64 kB). */
export function otherBodyLimitBytes(): number {
  return getConfig().OTHER_BODY_LIMIT_BYTES;
}

/** Requests per rolling second one signed-in person may make to `/api/trpc` (default 10). */
export function consoleSessionRateLimit(): number {
  return getConfig().CONSOLE_SESSION_RATE_LIMIT;
}

/** Where the per-key API rate limit is kept: this process, or a table shared by every instance. */
export function rateLimitStore(): "memory" | "postgres" {
  return getConfig().RATE_LIMIT_STORE;
}

/**
 * How many reverse proxies in front of the app to believe in `X-Forwarded-For` (`TRUST_PROXY`): unset, `false` or
 * `0` = none (the client is the socket's peer), `true` = 1, or a number of hops.
 */
export function trustedProxyHops(): number {
  return getConfig().TRUST_PROXY ?? 0;
}

/**
 * `HOST`: the address the HTTP server listens on. Embedded mode (a demo with generated credentials) listens on
 * 127.0.0.1 only unless `HOST` says otherwise (`HOST=0.0.0.0` to reach it from other machines); with `DATABASE_URL`
 * (production) every interface (undefined: Node's dual-stack default).
 */
export function listenHost(): string | undefined {
  const host = getConfig().HOST;
  if (host) return host;
  return isEmbeddedMode() ? "127.0.0.1" : undefined;
}

/**
 * `OPERATOR_EMAILS` (comma-separated): people who run this server. Operators see every organization's background-job
 * runs, system runs (crons, watchdog) and unredacted step outputs (docs/security.md "Roles"). Compared lowercased.
 */
export function operatorEmails(): ReadonlySet<string> {
  return new Set(getConfig().OPERATOR_EMAILS);
}

export function isOperatorEmail(email: string | null | undefined): boolean {
  return !!email && operatorEmails().has(email.trim().toLowerCase());
}

/** `SMTP_URL` + `MAIL_FROM`: invitations are emailed (nodemailer); without both, the link is shown to the inviting admin. */
export function mailSettings(): { smtpUrl: string; from: string } | null {
  const { SMTP_URL: smtpUrl, MAIL_FROM: from } = getConfig();
  return smtpUrl && from ? { smtpUrl, from } : null;
}

/** `SEED_DEMO=1` on an external database, or embedded mode: a demo instance (its calendar provider is the simulator). */
export function isDemoInstance(): boolean {
  return isEmbeddedMode() || getConfig().SEED_DEMO;
}
