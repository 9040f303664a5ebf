import path from "node:path";
import { z } from "zod";
import { resolveInngestMode } from "@/inngest/mode";
import { decodeEncryptionKey, ENCRYPTION_KEY_FORMAT } from "@/server/crypto/key-format";
import { recordingStorageSettings } from "@/server/storage/storage-settings";
import { readTwilioRealtimeSettings, VoiceSettingsError } from "@/server/voice/twilio-realtime/settings";

/**
 * # Configuration: every setting the app reads, in one place (create-t3-app's env.js is the model)
 *
 * Each environment variable is declared once below with its type, default, meaning and group; `loadConfig(env)`
 * validates all of them at once (each field, then the rules across fields) and throws one `ConfigError` listing every
 * problem. `npm start` / `npm run dev` call it before anything else, so a bad or missing setting stops the start with
 * that one message. The rest of the app reads `getConfig()` (parsed once per process, cached) — never `process.env`
 * (tests/unit/config/process-env.test.ts keeps it that way). `docs/configuration.md` is generated from this file
 * (`npm run docs:config`; a test fails when it is stale).
 *
 * An empty value counts as unset. Secrets (`secret: true`) are never echoed in an error message.
 *
 * Tests: `loadConfig(env)` is pure; `resetConfigForTests()` drops the cached configuration (the vitest setup file
 * calls it whenever a test changes `process.env`, see tests/setup/per-file.ts).
 */

export type SettingMeta = {
  group: SettingGroup;
  /** What it does; Markdown. */
  description: string;
  /** The default as people read it (Markdown); omitted = unset. */
  default?: string;
  /** Never echoed in errors; shown as secret in the docs. */
  secret?: boolean;
  /** Must be equal on every instance of one deployment (docs/deploy.md). */
  sameOnEveryInstance?: boolean;
  /** Set by the app's own scripts, not by people. */
  internal?: boolean;
};

export const SETTING_GROUPS = [
  "Server",
  "Database",
  "Secrets",
  "Dashboard sign-in and email",
  "Background jobs (Inngest)",
  "Call engine",
  "Real voice engine (VOICE_ENGINE=twilio-realtime)",
  "Agent tests",
  "Sequences: email and SMS",
  "Calendar provider",
  "Recordings",
  "Webhooks",
  "Logs, metrics and shutdown",
] as const;
export type SettingGroup = (typeof SETTING_GROUPS)[number];

const registry = z.registry<SettingMeta>();

// ---- value types (every input is a trimmed, non-empty string) ----

function wholeNumber(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, { error: "must be a whole number" })
    .transform(Number)
    .pipe(z.number().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }));
}

function positiveNumber(max: number) {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, { error: "must be a positive number" })
    .transform(Number)
    .pipe(z.number().gt(0, { error: "must be more than 0" }).max(max, { error: `must be at most ${max}` }));
}

const TRUE_WORDS = ["1", "true", "on", "yes"];
const FALSE_WORDS = ["0", "false", "off", "no"];
function flag() {
  return z
    .string()
    .transform((value) => value.toLowerCase())
    .refine((value) => TRUE_WORDS.includes(value) || FALSE_WORDS.includes(value), { error: "must be 1/true/on/yes or 0/false/off/no" })
    .transform((value) => TRUE_WORDS.includes(value));
}

function httpUrl(options: { https?: boolean } = {}) {
  return z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return options.https ? url.protocol === "https:" : url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: options.https ? "must be an https:// URL" : "must be an http(s):// URL" },
  );
}

/** Comma-separated http(s) origins (scheme, host, optional port; no path, query or credentials). */
function httpOriginList() {
  return text().refine(
    (value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean)
        .every((entry) => {
          try {
            const url = new URL(entry);
            return (url.protocol === "http:" || url.protocol === "https:") && url.origin === entry.replace(/\/$/, "").toLowerCase();
          } catch {
            return false;
          }
        }),
    { error: "must be comma-separated http(s) origins such as https://media.example.com" },
  );
}

function urlWithProtocols(protocols: string[], label: string) {
  return z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: `must be a ${label} URL` },
  );
}

function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(values, { error: () => `must be one of ${values.join(", ")}` }));
}

const text = () => z.string().max(4096, { error: "must be at most 4096 characters" });

function setting<T extends z.ZodType>(schema: T, meta: SettingMeta): T {
  registry.add(schema, meta);
  return schema;
}

// ---- the settings ----

const fields = {
  // Server
  NODE_ENV: setting(z.enum(["development", "production", "test"], { error: () => "must be development, production or test" }).default("development"), {
    group: "Server",
    description: "`production` under `npm start` (the script sets it), `development` under `npm run dev`. Production with `DATABASE_URL` requires the secrets and the public URL (see the rules below).",
    default: "`development`",
  }),
  PORT: setting(wholeNumber(1, 65_535).default(3000), { group: "Server", description: "HTTP port of the server.", default: "`3000`" }),
  HOST: setting(text().optional(), {
    group: "Server",
    description: "Address the server listens on. `HOST=0.0.0.0` accepts other machines in embedded mode.",
    default: "`127.0.0.1` in embedded mode; all interfaces with `DATABASE_URL`",
  }),
  APP_BASE_URL: setting(httpUrl().optional(), {
    group: "Server",
    description: "The public origin of the app: links in emails and webhooks, recording URLs, the OpenAPI document's server (never the request's `Host`).",
    default: "`NEXTAUTH_URL`, else `http://localhost:$PORT`",
    sameOnEveryInstance: true,
  }),
  DATA_DIR: setting(text().default("./.data").transform((value) => path.resolve(value)), {
    group: "Server",
    description: "Local state: embedded PostgreSQL, local recordings, generated secrets, `demo.json`, the calendar simulator's state.",
    default: "`./.data`",
  }),
  TRUST_PROXY: setting(
    z
      .string()
      .transform((value) => value.toLowerCase())
      .refine((value) => /^\d+$/.test(value) || ["true", "on", "false", "off"].includes(value), {
        error: "must be true, false or a number of proxies",
      })
      .transform((value) => (value === "true" || value === "on" ? 1 : value === "false" || value === "off" ? 0 : Number(value)))
      .optional(),
    {
      group: "Server",
      description: "How many reverse proxies to believe in `X-Forwarded-For` (API limits, per-IP sign-in lockout): `true` = 1, or a number.",
      default: "unset: the client is the TCP peer",
    },
  ),
  API_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(256 * 1024), {
    group: "Server",
    description: "Largest request body `/api/v1` reads (except bulk enrollment); larger → 413.",
    default: "`262144` (256 kB)",
    sameOnEveryInstance: true,
  }),
  API_BULK_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(2 * 1024 * 1024), {
    group: "Server",
    description: "Largest body of bulk enrollment (`POST /agents/{agentId}/schedule/sequences`).",
    default: "`2097152` (2 MB)",
    sameOnEveryInstance: true,
  }),
  API_UNAUTHENTICATED_RATE_LIMIT: setting(wholeNumber(1, 1_000_000).default(20), {
    group: "Server",
    description: "Requests per rolling second one client address may make without credentials (per instance): to `/api/v1` without a valid API key, to `/api/trpc` without a session, to the sign-in routes `/api/auth/*`.",
    default: "`20`",
  }),
  TRPC_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(2 * 1024 * 1024), {
    group: "Server",
    description:
      "Largest request body of the console's endpoint `/api/trpc` (the CSV import sends up to 1,000 contacts per request, like bulk enrollment); larger → 413 before a byte is read (`npm start`, `npm run dev`).",
    default: "`2097152` (2 MB)",
    sameOnEveryInstance: true,
  }),
  INNGEST_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(32 * 1024 * 1024), {
    group: "Server",
    description: "Largest request body of `/api/inngest` (Inngest's largest function run state is 32 MB); larger → 413 before a byte is read.",
    default: "`33554432` (32 MB)",
    sameOnEveryInstance: true,
  }),
  OTHER_BODY_LIMIT_BYTES: setting(wholeNumber(1, 1024 * 1024 * 1024).default(64 * 1024), {
    group: "Server",
    description:
      "Largest request body of every other route the server hands to Next.js: sign-in (`/api/auth/*`), voice provider callbacks (`/api/voice/*`), pages; larger → 413 before a byte is read.",
    default: "`65536` (64 kB)",
    sameOnEveryInstance: true,
  }),
  CONSOLE_SESSION_RATE_LIMIT: setting(wholeNumber(1, 1_000_000).default(10), {
    group: "Server",
    description:
      "Requests per rolling second one signed-in person may make to `/api/trpc` (all their sessions together; shared by every instance with `RATE_LIMIT_STORE=postgres`). Requests without a session count against the client address (`API_UNAUTHENTICATED_RATE_LIMIT`).",
    default: "`10`",
    sameOnEveryInstance: true,
  }),
  RATE_LIMIT_STORE: setting(oneOf(["memory", "postgres"] as const).default("memory"), {
    group: "Server",
    description: "`postgres`: the per-key API limit, the per-person console limit, sign-in lockout and invitation counters are shared by every instance (required with more than one instance).",
    default: "`memory` (one instance)",
    sameOnEveryInstance: true,
  }),

  // Database
  DATABASE_URL: setting(urlWithProtocols(["postgres:", "postgresql:"], "postgres://").optional(), {
    group: "Database",
    description: "PostgreSQL ≥ 15 (`postgres://user:password@host:5432/db`). Unset: embedded PostgreSQL in `$DATA_DIR/pg`. Migrations are applied on every start.",
    default: "embedded PostgreSQL",
    secret: true,
    sameOnEveryInstance: true,
  }),
  DATABASE_POOL_SIZE: setting(wholeNumber(1, 500).default(10), {
    group: "Database",
    description: "Connections this instance keeps open (instances × pool size must stay under the server's `max_connections`).",
    default: "`10`",
  }),
  SEED_DEMO: setting(flag().default(false), {
    group: "Database",
    description: "`1`: seed a demo dataset into an external database on the first start (embedded mode always does). The instance is then a demo: its calendar provider is the local simulator unless `CHILI_PIPER_BASE_URL` is set.",
    default: "off",
  }),
  EMBEDDED_MODE: setting(flag().default(false), {
    group: "Database",
    description: "Set by `npm start` when it started the embedded PostgreSQL itself (the app then behaves as a local demo). Do not set it.",
    default: "set by the start script",
    internal: true,
  }),

  // Secrets
  NEXTAUTH_SECRET: setting(text().optional(), {
    group: "Secrets",
    description: "Signs dashboard sessions.",
    default: "generated into `$DATA_DIR/nextauth.secret` (embedded mode)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  APP_SECRET: setting(text().min(16, { error: "must be at least 16 characters" }).optional(), {
    group: "Secrets",
    description: "Signs recording links (and derives `VOICE_EVENTS_SECRET` when that is unset).",
    default: "generated into `$DATA_DIR/app.secret` (embedded mode and outside production)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  APP_ENCRYPTION_KEY: setting(text().refine((value) => decodeEncryptionKey(value) !== null, { error: `must be ${ENCRYPTION_KEY_FORMAT}` }).optional(), {
    group: "Secrets",
    description: "AES-256-GCM key of stored provider credentials.",
    default: "generated into `$DATA_DIR/app-encryption.key` (embedded mode and outside production)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  VOICE_EVENTS_SECRET: setting(text().optional(), {
    group: "Secrets",
    description: "Shared with a voice provider adapter that posts signed events to `/api/voice/events` (docs/call-engine.md).",
    default: "derived from `APP_SECRET`",
    secret: true,
    sameOnEveryInstance: true,
  }),

  // Dashboard sign-in and email
  NEXTAUTH_URL: setting(httpUrl().optional(), {
    group: "Dashboard sign-in and email",
    description: "The dashboard's public URL (sign-in callbacks).",
    default: "`http://localhost:$PORT`",
    sameOnEveryInstance: true,
  }),
  AUTH_CREDENTIALS: setting(flag().optional(), {
    group: "Dashboard sign-in and email",
    description: "Password sign-in of seeded/invited users (`on`/`off`).",
    default: "`on` in embedded mode, `off` with `DATABASE_URL`",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_ISSUER: setting(httpUrl().optional(), {
    group: "Dashboard sign-in and email",
    description: "OpenID provider for console sign-in (with `AUTH_OIDC_CLIENT_ID` and `AUTH_OIDC_CLIENT_SECRET`: all three or none).",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_CLIENT_ID: setting(text().optional(), { group: "Dashboard sign-in and email", description: "OIDC client ID.", sameOnEveryInstance: true }),
  AUTH_OIDC_CLIENT_SECRET: setting(text().optional(), { group: "Dashboard sign-in and email", description: "OIDC client secret.", secret: true, sameOnEveryInstance: true }),
  AUTH_OIDC_ORG_CLAIM: setting(text().default("org_id"), {
    group: "Dashboard sign-in and email",
    description: "The ID-token claim holding the person's organization (= our `orgId`).",
    default: "`org_id`",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_ROLE_CLAIM: setting(text().default("org_role"), {
    group: "Dashboard sign-in and email",
    description: "The claim holding the person's role in it.",
    default: "`org_role`",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_NAME: setting(text().default("single sign-on"), {
    group: "Dashboard sign-in and email",
    description: "The sign-in button's label.",
    default: "`single sign-on`",
  }),
  OPERATOR_EMAILS: setting(
    text()
      .transform((value) =>
        value
          .split(",")
          .map((email) => email.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((emails) => emails.every((email) => /^[^\s@]+@[^\s@]+$/.test(email)), { error: "must be comma-separated email addresses" })
      .default([]),
    {
      group: "Dashboard sign-in and email",
      description: "Comma-separated emails of the people who run the server: they see every organization's background jobs.",
      sameOnEveryInstance: true,
    },
  ),
  SMTP_URL: setting(urlWithProtocols(["smtp:", "smtps:"], "smtp:// or smtps://").optional(), {
    group: "Dashboard sign-in and email",
    description: "Mail server for invitations, e.g. `smtps://user:pass@mail.example:465` (with `MAIL_FROM`).",
    default: "unset: invitation links are shown to the inviting admin and logged",
    secret: true,
  }),
  MAIL_FROM: setting(text().optional(), {
    group: "Dashboard sign-in and email",
    description: "Sender of invitation emails, e.g. `Console <no-reply@example.com>` (with `SMTP_URL`).",
  }),

  // Background jobs (Inngest)
  INNGEST_DEV: setting(text().optional(), {
    group: "Background jobs (Inngest)",
    description: "`1` (or the dev server's URL): functions run on the Inngest dev server.",
    default: "unset",
    sameOnEveryInstance: true,
  }),
  INNGEST_EVENT_KEY: setting(text().optional(), {
    group: "Background jobs (Inngest)",
    description: "Inngest Cloud / self-hosted `inngest start`: the key events are sent with. Any Inngest key switches from the embedded runner to Inngest.",
    default: "unset: the embedded runner (state in PostgreSQL)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  INNGEST_SIGNING_KEY: setting(text().optional(), {
    group: "Background jobs (Inngest)",
    description: "Verifies Inngest's requests to `/api/inngest` and signs the app's sync.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  INNGEST_SIGNING_KEY_FALLBACK: setting(text().optional(), {
    group: "Background jobs (Inngest)",
    description: "The previous signing key while rotating (read by the Inngest SDK).",
    secret: true,
    sameOnEveryInstance: true,
  }),
  INNGEST_BASE_URL: setting(httpUrl().optional(), {
    group: "Background jobs (Inngest)",
    description: "A self-hosted Inngest server (`inngest start`), e.g. `http://inngest:8288`.",
    default: "Inngest Cloud",
    sameOnEveryInstance: true,
  }),

  INNGEST_EMBEDDED_WORKERS: setting(wholeNumber(1, 256).default(12), {
    group: "Background jobs (Inngest)",
    description: "Embedded runner: requests (function steps) it executes at once in this instance.",
    default: "`12`",
  }),
  INNGEST_EMBEDDED_FUNCTION_SHARE: setting(wholeNumber(1, 256).default(8), {
    group: "Background jobs (Inngest)",
    description:
      "Embedded runner: most of those workers one function may hold, so a burst of one function (a campaign's analysis batches) leaves the others (the dispatcher, webhook deliveries, a meeting's reconciliation) room to run. At least `INNGEST_EMBEDDED_WORKERS` turns the share off.",
    default: "`8`",
  }),

  // Call engine
  VOICE_ENGINE: setting(oneOf(["simulator", "twilio-realtime"] as const).default("simulator"), {
    group: "Call engine",
    description: "`simulator`: outcome by the number's last digit (DESIGN §7); `twilio-realtime`: real calls (docs/voice-twilio.md).",
    default: "`simulator`",
    sameOnEveryInstance: true,
  }),
  CALL_QUALITY_LATENCY_THRESHOLD_MS: setting(wholeNumber(100, 60_000).default(1500), {
    group: "Call engine",
    description: "The overview lists the calls whose p95 response latency is above this (docs/call-quality.md).",
    default: "`1500`",
  }),
  CALL_QUALITY_DEAD_AIR_SECONDS: setting(wholeNumber(1, 60).default(3), {
    group: "Call engine",
    description: "Silence on both sides of a call longer than this counts as dead air (docs/call-quality.md).",
    default: "`3`",
  }),
  SIMULATOR_EVENTS_URL: setting(httpUrl().optional(), {
    group: "Call engine",
    description: "Where the simulated voice engine posts its call events.",
    default: "`http://127.0.0.1:$PORT/api/voice/events`",
  }),
  VOICE_RECORDING_URL_ORIGINS: setting(httpOriginList().optional(), {
    group: "Call engine",
    description:
      "Origins (comma-separated, e.g. `https://media.provider.example`) a voice provider's `call.ended` event may point its `recording.url` at; the audio is downloaded from there into the recording store. URLs elsewhere are not fetched: the call keeps the URL and reports `no-recording`. The simulator's own recording host is always allowed.",
    default: "none (only the simulator's recording host)",
  }),
  VOICE_SIMULATOR_PROCESS: setting(oneOf(["separate", "in-app"] as const).default("separate"), {
    group: "Call engine",
    description:
      "Where the simulator's conversations run. `separate`: a child process of the app (started, restarted when it dies, and stopped with it), as a provider runs calls on its own machines, so they cost the app's event loop nothing; `in-app`: in the app's own process, as before round 6.",
    default: "`separate`",
  }),
  VOICE_SIMULATOR_MS_PER_SECOND: setting(wholeNumber(1, 1000).optional(), {
    group: "Call engine",
    description:
      "How fast the simulator's live calls run: wall milliseconds per simulated second. Slower values let a person (or an e2e test) follow a call on the Live calls page and hang it up.",
    default: "`12` (a 7-minute call in about 5 s)",
  }),
  VOICE_SIMULATOR_MAX_CONVERSATION_MS: setting(wholeNumber(1, 600_000).optional(), {
    group: "Call engine",
    description: "Longest wall time of one simulated conversation.",
    default: "`8000`",
  }),
  COMPLIANCE_QUIET_HOURS: setting(flag().default(true), {
    group: "Call engine",
    description:
      "Quiet hours at dial time (federal 8:00–21:00 and the states' stricter hours, docs/compliance.md). `off` is only for test and staging deployments that call simulated numbers around the clock (the e2e server sets it): never turn it off where real people are called.",
    default: "`on`",
    sameOnEveryInstance: true,
  }),
  CALL_PAUSED_RECHECK_SECONDS: setting(wholeNumber(1, 86_400).default(300), {
    group: "Call engine",
    description: "How long a due call of a paused agent waits before it is looked at again.",
    default: "`300`",
    sameOnEveryInstance: true,
  }),
  CALL_DIAL_RATE_PER_SECOND: setting(positiveNumber(10_000).default(10), {
    group: "Call engine",
    description:
      "Calls per second one organization dials, all its agents together (an organization's `dial_rate_per_second` column overrides it); a burst is spread over time on purpose and each call records its planned slot (`dial_slot_at`). See docs/call-engine.md.",
    default: "`10`",
    sameOnEveryInstance: true,
  }),
  CALL_DIAL_RATE_PER_NUMBER_PER_SECOND: setting(positiveNumber(10_000).default(5), {
    group: "Call engine",
    description: "Calls per second from one caller ID (one of an agent's numbers).",
    default: "`5`",
    sameOnEveryInstance: true,
  }),
  NUMBER_DAILY_CALL_CAP: setting(wholeNumber(1, 100_000).default(100), {
    group: "Call engine",
    description:
      "Calls a day one number places, when the number has no cap of its own (`daily_call_cap`). Carriers' and analytics engines' guidance for outbound caller IDs is on the order of 100 calls a day per number; above it numbers are labelled spam sooner. See docs/numbers.md.",
    default: "`100`",
    sameOnEveryInstance: true,
  }),
  NUMBER_REST_HOURS: setting(wholeNumber(1, 2_160).default(72), {
    group: "Call engine",
    description:
      "How long a number the health rule rests stays out of the rotation; it then comes back under `watch` (docs/numbers.md \"Number health\").",
    default: "`72`",
    sameOnEveryInstance: true,
  }),
  CALL_DISPATCH_HORIZON_MS: setting(wholeNumber(1, 60_000).default(2000), {
    group: "Call engine",
    description:
      "How far ahead one claim of the dispatcher plans dial slots; the next claim starts when half of it is spent, while the calls of this one are still being placed. A claimed call waits at most this long for its slot (the dial gate's checks are that old when it is dialed). See docs/call-engine.md.",
    default: "`2000`",
    sameOnEveryInstance: true,
  }),
  CALL_DISPATCH_STEP_BUDGET_MS: setting(wholeNumber(0, 60_000).default(10_000), {
    group: "Call engine",
    description:
      "How long one dispatcher step keeps claiming and placing before it returns (the run then sleeps or goes on with a new step). Keep it well under the request timeout of the Inngest deployment; 0: one claim per step.",
    default: "`10000`",
    sameOnEveryInstance: true,
  }),
  CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS: setting(wholeNumber(1, 86_400).optional(), {
    group: "Call engine",
    description:
      "A call may stay `Calling` this long after the provider's last event before the watchdog asks the provider about it. The watchdog fails it only if the provider has no such call; one still in the air waits (docs/call-engine.md \"Watchdog\").",
    default: "the voice engine's longest call + 120",
    sameOnEveryInstance: true,
  }),
  CALL_WATCHDOG_LATE_EVENTS_SECONDS: setting(wholeNumber(1, 86_400).default(300), {
    group: "Call engine",
    description:
      "After the provider says a call ended, its events may be this late; past it, the watchdog ends the call with the provider's own result (disposition, duration; no transcript or recording).",
    default: "`300`",
    sameOnEveryInstance: true,
  }),
  CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS: setting(wholeNumber(1, 86_400).default(600), {
    group: "Call engine",
    description: "A call may stay `Processing Analysis` this long before the watchdog fails it.",
    default: "`600`",
    sameOnEveryInstance: true,
  }),
  ANALYSIS_LLM_URL: setting(httpUrl().optional(), {
    group: "Call engine",
    description: "An OpenAI-compatible chat-completions endpoint for post-call analysis (with `ANALYSIS_LLM_MODEL`).",
    default: "unset: rule-based analysis",
    sameOnEveryInstance: true,
  }),
  ANALYSIS_LLM_MODEL: setting(text().optional(), { group: "Call engine", description: "The analysis model.", sameOnEveryInstance: true }),
  ANALYSIS_LLM_API_KEY: setting(text().optional(), { group: "Call engine", description: "Bearer key of the analysis endpoint.", secret: true, sameOnEveryInstance: true }),

  // Sequences: email and SMS (docs/sequences.md)
  SEQUENCE_EMAIL_CREDITS: setting(wholeNumber(0, 1000).default(1), {
    group: "Sequences: email and SMS",
    description: "Credits charged per email an EMAIL step sends (to the ledger, with the agent).",
    default: "`1`",
    sameOnEveryInstance: true,
  }),
  SEQUENCE_SMS_SEGMENT_CREDITS: setting(wholeNumber(0, 1000).default(1), {
    group: "Sequences: email and SMS",
    description: "Credits charged per SMS segment an SMS step sends (a 2-segment message costs twice this).",
    default: "`1`",
    sameOnEveryInstance: true,
  }),
  SMS_TRANSPORT: setting(oneOf(["auto", "twilio", "simulator"] as const).default("auto"), {
    group: "Sequences: email and SMS",
    description:
      "How SMS steps are sent: `twilio` (the account of `TWILIO_ACCOUNT_SID`/`TWILIO_AUTH_TOKEN`, callbacks verified against `PUBLIC_BASE_URL`), `simulator` (the project's Twilio simulator, started in this process on loopback; nothing leaves the machine), `auto`: `twilio` when `TWILIO_ACCOUNT_SID` is set, else `simulator`.",
    default: "`auto`",
    sameOnEveryInstance: true,
  }),
  SMS_OPT_OUT_HANDLING: setting(oneOf(["twilio-default", "advanced-opt-out", "app"] as const).default("twilio-default"), {
    group: "Sequences: email and SMS",
    description:
      "Who answers STOP, START and HELP texts to the agents' numbers, so a contact gets exactly one answer: `twilio-default` (Twilio's default opt-out handling of long codes and toll-free numbers answers STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT, REVOKE, OPTOUT, START, YES, UNSTOP, HELP and INFO itself; the app answers only the other keywords it reads, such as `OPT OUT`), `advanced-opt-out` (the numbers are in a Messaging Service with Advanced Opt-Out: Twilio answers the keywords it marks with `OptOutType`, the app the others), `app` (Twilio answers none: a short code outside a Messaging Service, or opt-out handling turned off by Twilio; the app answers every keyword). A keyword Twilio marks with `OptOutType` is never answered twice.",
    default: "`twilio-default`",
    sameOnEveryInstance: true,
  }),

  // Real voice engine
  TWILIO_ACCOUNT_SID: setting(text().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "The Twilio account (`AC…`).",
    sameOnEveryInstance: true,
  }),
  TWILIO_AUTH_TOKEN: setting(text().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "Verifies every Twilio callback's `X-Twilio-Signature` (and authenticates REST without an API key).",
    secret: true,
    sameOnEveryInstance: true,
  }),
  TWILIO_API_KEY: setting(text().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "An API key (`SK…`) for Twilio's REST API instead of the auth token (with `TWILIO_API_SECRET`).",
    sameOnEveryInstance: true,
  }),
  TWILIO_API_SECRET: setting(text().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "The API key's secret.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  TWILIO_API_BASE_URL: setting(httpUrl().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "Twilio's REST origin (tests point it at a simulator).",
    default: "`https://api.twilio.com`",
    sameOnEveryInstance: true,
  }),
  PUBLIC_BASE_URL: setting(httpUrl().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "The `https://` origin Twilio reaches this service at (callbacks are verified against it; the media stream is `wss://` on it).",
    sameOnEveryInstance: true,
  }),
  OPENAI_API_KEY: setting(text().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "OpenAI Realtime key.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  REALTIME_MODEL: setting(text().default("gpt-realtime"), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "The speech-to-speech model.",
    default: "`gpt-realtime`",
    sameOnEveryInstance: true,
  }),
  DISCLOSURE_SPEECH_MODEL: setting(text().default("gpt-4o-mini-tts"), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "The text-to-speech model that speaks each call's disclosures word for word (OpenAI `audio/speech`, in the agent's voice) before the Realtime model says anything (docs/compliance.md).",
    default: "`gpt-4o-mini-tts`",
    sameOnEveryInstance: true,
  }),
  OPENAI_BASE_URL: setting(httpUrl().optional(), {
    group: "Real voice engine (VOICE_ENGINE=twilio-realtime)",
    description: "OpenAI's API base (tests point it at a simulator).",
    default: "`https://api.openai.com/v1`",
    sameOnEveryInstance: true,
  }),

  // Agent tests
  AGENT_TEST_MODEL: setting(text().default("gpt-4.1-mini"), {
    group: "Agent tests",
    description:
      "The chat model that plays the agent in agent tests' simulated conversations (and judges `judge` expectations), through `OPENAI_BASE_URL` with `OPENAI_API_KEY`. Without `OPENAI_API_KEY` tests use the embedded OpenAI simulator's rule-based stand-ins (docs/agent-testing.md).",
    default: "`gpt-4.1-mini`",
    sameOnEveryInstance: true,
  }),
  AGENT_TEST_CALLER_MODEL: setting(text().default("gpt-4.1-mini"), {
    group: "Agent tests",
    description: "The chat model that plays the simulated caller in agent tests.",
    default: "`gpt-4.1-mini`",
    sameOnEveryInstance: true,
  }),

  // Calendar provider
  CHILI_PIPER_BASE_URL: setting(httpUrl().optional(), {
    group: "Calendar provider",
    description: "The Chili Piper Edge API base URL (docs/meetings.md).",
    default: "this instance's calendar simulator in embedded mode (and with `SEED_DEMO=1`, and in `npm run seed`); else `https://fire.chilipiper.com/api/fire-edge`",
    sameOnEveryInstance: true,
  }),
  CHILI_PIPER_SIMULATOR_PORT: setting(wholeNumber(1, 65_535).optional(), {
    group: "Calendar provider",
    description: "Pins the embedded calendar simulator's port.",
    default: "a free port, recorded in `$DATA_DIR/chili-piper-simulator.endpoint.json`",
  }),
  CHILI_PIPER_TIMEOUT_MS: setting(wholeNumber(100, 120_000).default(5000), {
    group: "Calendar provider",
    description: "Per-request timeout of calendar provider calls.",
    default: "`5000`",
  }),

  // Recordings
  RECORDING_STORAGE: setting(oneOf(["local", "s3"] as const).default("local"), {
    group: "Recordings",
    description: "`local`: files under `$DATA_DIR/recordings` behind signed links; `s3`: an S3-compatible bucket with presigned URLs (docs/conversations.md).",
    default: "`local`",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_BUCKET: setting(text().optional(), { group: "Recordings", description: "Bucket name (required with `s3`).", sameOnEveryInstance: true }),
  RECORDING_S3_REGION: setting(text().default("us-east-1"), { group: "Recordings", description: "Bucket region.", default: "`us-east-1`", sameOnEveryInstance: true }),
  RECORDING_S3_ENDPOINT: setting(httpUrl().optional(), {
    group: "Recordings",
    description: "Endpoint of a non-AWS service, e.g. `http://minio:9000`.",
    default: "AWS",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_FORCE_PATH_STYLE: setting(flag().default(false), {
    group: "Recordings",
    description: "`true` for path-style addressing (MinIO).",
    default: "`false`",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_PREFIX: setting(text().default(""), { group: "Recordings", description: "Key prefix inside the bucket, e.g. `recordings/`.", sameOnEveryInstance: true }),
  RECORDING_S3_ACCESS_KEY_ID: setting(text().optional(), {
    group: "Recordings",
    description: "Static credentials (with `RECORDING_S3_SECRET_ACCESS_KEY`: both or neither).",
    default: "the AWS default credential chain",
    sameOnEveryInstance: true,
  }),
  RECORDING_S3_SECRET_ACCESS_KEY: setting(text().optional(), { group: "Recordings", description: "The access key's secret.", secret: true, sameOnEveryInstance: true }),
  RECORDING_RETENTION_DAYS: setting(wholeNumber(0, 36_500).default(90), {
    group: "Recordings",
    description: "Days audio is kept after the call; `0` keeps it forever.",
    default: "`90`",
    sameOnEveryInstance: true,
  }),

  // Webhooks
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: setting(flag().default(false), {
    group: "Webhooks",
    description: "`1`: webhook URLs may also reach private/unique-local addresses (self-hosted receivers on an internal network). Link-local/metadata stay refused.",
    default: "off (production refuses loopback, private and link-local addresses)",
    sameOnEveryInstance: true,
  }),

  // Logs, metrics and shutdown
  LOG_LEVEL: setting(oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const).default("info"), {
    group: "Logs, metrics and shutdown",
    description: "Least severe level written. Health and metrics requests are logged at `debug`.",
    default: "`info`",
  }),
  LOG_FORMAT: setting(oneOf(["json", "pretty"] as const).optional(), {
    group: "Logs, metrics and shutdown",
    description: "`json`: one JSON object per line (pino); `pretty`: human-readable (needs the dev dependency `pino-pretty`).",
    default: "`pretty` under `npm run dev`, else `json`",
  }),
  LOG_FILE: setting(text().optional(), {
    group: "Logs, metrics and shutdown",
    description: "Append the JSON log lines to this file instead of standard output (the test suite uses it to scan its logs).",
    default: "standard output",
  }),
  METRICS_TOKEN: setting(text().min(16, { error: "must be at least 16 characters" }).optional(), {
    group: "Logs, metrics and shutdown",
    description: "Bearer token for `GET /metrics` from other machines.",
    default: "unset: `/metrics` answers loopback clients only",
    secret: true,
  }),
  STAGE_CPU_ACCOUNTING: setting(flag().default(false), {
    group: "Logs, metrics and shutdown",
    description:
      "Times the app's CPU by pipeline stage (enrollment, dispatch, voice events, finalize, analysis, webhook, runner, HTTP) as `app_stage_cpu_seconds_total{stage}` on `/metrics`. For benchmarks (`bench/campaign.ts`): its async hook costs CPU itself.",
    default: "`false`",
  }),
  SHUTDOWN_TIMEOUT_SECONDS: setting(wholeNumber(1, 3600).default(25), {
    group: "Logs, metrics and shutdown",
    description: "On SIGTERM: readiness turns 503, the server stops accepting, in-flight requests and background steps finish, then the database closes — all within this bound (keep it below the orchestrator's kill timeout).",
    default: "`25`",
  }),
};

const schema = z.object(fields);

export type SettingName = keyof typeof fields;
export type AppConfig = z.infer<typeof schema>;
/** The settings as given (trimmed; empty = unset), for validators that take an env-like record. */
export type RawSettings = Readonly<Partial<Record<SettingName, string>>>;

export const SETTING_NAMES = Object.keys(fields) as SettingName[];

/** Every setting with its metadata, in declaration order (docs generator). */
export function describeSettings(): Array<{ name: SettingName; meta: SettingMeta }> {
  return SETTING_NAMES.map((name) => ({ name, meta: registry.get(fields[name])! }));
}

// ---- rules across settings ----

type Rule = { description: string; check: (raw: RawSettings) => string[] };

/** The rules across settings, in words (docs) and as checks. Each check returns its problems. */
export const CROSS_FIELD_RULES: Rule[] = [
  {
    description:
      "Production (`NODE_ENV=production`) with an external `DATABASE_URL` requires `NEXTAUTH_SECRET`, `APP_SECRET`, `APP_ENCRYPTION_KEY` and the public URL (`APP_BASE_URL` or `NEXTAUTH_URL`): nothing is generated into a `DATA_DIR` that the next instance would not share.",
    check: (raw) => {
      if (raw.NODE_ENV !== "production" || !raw.DATABASE_URL || isTrue(raw.EMBEDDED_MODE)) return [];
      const problems: string[] = [];
      for (const name of ["NEXTAUTH_SECRET", "APP_SECRET", "APP_ENCRYPTION_KEY"] as const) {
        if (!raw[name]) problems.push(`${name} is not set: required in production with DATABASE_URL (the same value on every instance).`);
      }
      if (!raw.APP_BASE_URL && !raw.NEXTAUTH_URL) problems.push("APP_BASE_URL (or NEXTAUTH_URL) is not set: required in production with DATABASE_URL (the public origin of the app).");
      return problems;
    },
  },
  {
    description: "`AUTH_OIDC_ISSUER`, `AUTH_OIDC_CLIENT_ID` and `AUTH_OIDC_CLIENT_SECRET`: all three or none.",
    check: (raw) => {
      const names = ["AUTH_OIDC_ISSUER", "AUTH_OIDC_CLIENT_ID", "AUTH_OIDC_CLIENT_SECRET"] as const;
      const missing = names.filter((name) => !raw[name]);
      return missing.length > 0 && missing.length < names.length ? [`${missing.join(", ")}: required with ${names.filter((name) => raw[name]).join(", ")} (single sign-on needs all three).`] : [];
    },
  },
  {
    description: "`SMTP_URL` and `MAIL_FROM`: both or neither.",
    check: (raw) => (Boolean(raw.SMTP_URL) !== Boolean(raw.MAIL_FROM) ? [`${raw.SMTP_URL ? "MAIL_FROM" : "SMTP_URL"}: required with ${raw.SMTP_URL ? "SMTP_URL" : "MAIL_FROM"} (invitation emails need both).`] : []),
  },
  {
    description: "`ANALYSIS_LLM_URL` requires `ANALYSIS_LLM_MODEL`.",
    check: (raw) => (raw.ANALYSIS_LLM_URL && !raw.ANALYSIS_LLM_MODEL ? ["ANALYSIS_LLM_MODEL: required with ANALYSIS_LLM_URL."] : []),
  },
  {
    description:
      "Inngest Cloud or self-hosted (`INNGEST_EVENT_KEY`, `INNGEST_SIGNING_KEY` or `INNGEST_BASE_URL` set, `INNGEST_DEV` not): both `INNGEST_EVENT_KEY` and `INNGEST_SIGNING_KEY` are required.",
    check: (raw) => {
      if (resolveInngestMode(raw) !== "cloud") return [];
      return (["INNGEST_EVENT_KEY", "INNGEST_SIGNING_KEY"] as const)
        .filter((name) => !raw[name])
        .map((name) => `${name}: required when Inngest is used (INNGEST_EVENT_KEY, INNGEST_SIGNING_KEY or INNGEST_BASE_URL is set).`);
    },
  },
  {
    description: "`RECORDING_STORAGE=s3` requires `RECORDING_S3_BUCKET`; `RECORDING_S3_ACCESS_KEY_ID` and `RECORDING_S3_SECRET_ACCESS_KEY` go together.",
    check: (raw) => {
      if (raw.RECORDING_STORAGE?.toLowerCase() !== "s3") return [];
      try {
        recordingStorageSettings(raw);
        return [];
      } catch (error) {
        return [error instanceof Error ? error.message : String(error)];
      }
    },
  },
  {
    description:
      "`VOICE_ENGINE=twilio-realtime` requires `TWILIO_ACCOUNT_SID`, `TWILIO_AUTH_TOKEN`, `PUBLIC_BASE_URL` (https), `OPENAI_API_KEY`, `ANALYSIS_LLM_URL` and `ANALYSIS_LLM_MODEL` (docs/voice-twilio.md).",
    check: (raw) => {
      if (raw.VOICE_ENGINE?.toLowerCase() !== "twilio-realtime") return [];
      try {
        readTwilioRealtimeSettings(raw);
        return [];
      } catch (error) {
        if (error instanceof VoiceSettingsError) return [error.message];
        throw error;
      }
    },
  },
];

function isTrue(value: string | undefined): boolean {
  return TRUE_WORDS.includes((value ?? "").toLowerCase());
}

// ---- loading ----

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(
      `Invalid configuration (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${problems.map((problem) => `  - ${problem}`).join("\n")}\nSee docs/configuration.md.`,
    );
    this.name = "ConfigError";
    this.problems = problems;
  }
}

/** The known settings of `env`, trimmed, empty ones left out. */
export function readRawSettings(env: Readonly<Record<string, string | undefined>>): RawSettings {
  const raw: Partial<Record<SettingName, string>> = {};
  for (const name of SETTING_NAMES) {
    const value = env[name]?.trim();
    if (value) raw[name] = value;
  }
  return raw;
}

export type LoadedConfig = AppConfig & { readonly raw: RawSettings };

/** Validates every setting of `env` (pure: no caching, no side effects). Throws one ConfigError listing every problem. */
export function loadConfig(env: Readonly<Record<string, string | undefined>>): LoadedConfig {
  const raw = readRawSettings(env);
  const problems: string[] = [];
  const parsed = schema.safeParse(raw);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const name = String(issue.path[0]) as SettingName;
      const meta = registry.get(fields[name]);
      const value = raw[name];
      const shown = meta?.secret || value === undefined ? "" : ` (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
      problems.push(`${name}: ${issue.message}${shown}.`);
    }
  }
  for (const rule of CROSS_FIELD_RULES) problems.push(...rule.check(raw));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ ...parsed.data!, raw: Object.freeze(raw) });
}

const holder = globalThis as unknown as { __appConfig?: LoadedConfig };

/**
 * The configuration of this process, validated once from `process.env` and cached (on globalThis: Next.js loads this
 * module once per bundle, and every copy must agree).
 */
export function getConfig(): LoadedConfig {
  holder.__appConfig ??= loadConfig(process.env);
  return holder.__appConfig;
}

/** Tests: forget the cached configuration, so the next getConfig() reads `process.env` again. */
export function resetConfigForTests(): void {
  holder.__appConfig = undefined;
}

/**
 * The start scripts: after filling in what embedded mode generates (the embedded DATABASE_URL, generated secrets),
 * validate the final environment and make it this process's configuration.
 */
export function reloadConfig(): LoadedConfig {
  holder.__appConfig = loadConfig(process.env);
  return holder.__appConfig;
}
