import { z } from "zod";
import { resolveInngestMode } from "@/inngest/mode";
import { processSingleton } from "@/server/runtime/process-singleton";
import { recordingStorageSettings } from "@/server/storage/storage-settings";
import { isCarrierName, voiceCarrier } from "@/server/carriers/registry";
import { VoiceSettingsError } from "@/server/voice/twilio-realtime/settings";
import { agentTestSettings } from "./settings/agent-tests";
import { analysisSettings } from "./settings/analysis";
import { authSettings } from "./settings/auth";
import { calendarSettings } from "./settings/calendar";
import { callEngineSettings } from "./settings/call-engine";
import { databaseSettings } from "./settings/database";
import { httpLimitSettings } from "./settings/http-limits";
import { inngestSettings } from "./settings/inngest";
import { smtpSettings } from "./settings/mail";
import { observabilitySettings } from "./settings/observability";
import { recordingSettings } from "./settings/recordings";
import { secretSettings } from "./settings/secrets";
import { sequenceSettings } from "./settings/sequences";
import { serverSettings } from "./settings/server";
import { settingMeta, type SettingMeta } from "./settings/setting";
import { telnyxSettings } from "./settings/telnyx";
import { twilioRealtimeSettings } from "./settings/twilio-realtime";
import { isTrue } from "./settings/value-types";
import { webhookSettings } from "./settings/webhooks";

export { SETTING_GROUPS, type SettingGroup, type SettingMeta } from "./settings/setting";

/**
 * # Configuration: every setting the app reads, declared in ./settings/ and loaded here (create-t3-app's env.js is the model)
 *
 * Each environment variable is declared once, with its type, default, meaning and group, in the file of its group
 * under ./settings/ (server.ts, http-limits.ts, database.ts, …; value types in value-types.ts). This file joins them
 * into one schema, states the rules across settings of different groups, and loads: `loadConfig(env)` validates all
 * of them at once (each field, then the rules across fields) and throws one `ConfigError` listing every problem.
 * `npm start` / `npm run dev` call it before anything else, so a bad or missing setting stops the start with that one
 * message. The rest of the app reads `getConfig()` (parsed once per process, cached) — never `process.env`
 * (tests/unit/config/configuration.test.ts keeps it that way). `docs/configuration.md` is generated from these
 * declarations (`npm run docs:config`; a test fails when it is stale).
 *
 * An empty value counts as unset. Secrets (`secret: true`) are never echoed in an error message.
 *
 * Tests: `loadConfig(env)` is pure; `resetConfigForTests()` drops the cached configuration (the vitest setup file
 * calls it whenever a test changes `process.env`, see tests/setup/per-file.ts).
 */

// In this order: SETTING_NAMES, hence the order of an error's problems and of each group's table in the docs.
const fields = {
  ...serverSettings,
  ...httpLimitSettings,
  ...databaseSettings,
  ...secretSettings,
  ...authSettings,
  ...smtpSettings,
  ...inngestSettings,
  ...callEngineSettings,
  ...analysisSettings,
  ...sequenceSettings,
  ...twilioRealtimeSettings,
  ...telnyxSettings,
  ...agentTestSettings,
  ...calendarSettings,
  ...recordingSettings,
  ...webhookSettings,
  ...observabilitySettings,
};

const schema = z.object(fields);

export type SettingName = keyof typeof fields;
export type AppConfig = z.infer<typeof schema>;
/** The settings as given (trimmed; empty = unset), for validators that take an env-like record. */
export type RawSettings = Readonly<Partial<Record<SettingName, string>>>;

export const SETTING_NAMES = Object.keys(fields) as SettingName[];

/** Every setting with its metadata, in declaration order (docs generator). */
export function describeSettings(): Array<{ name: SettingName; meta: SettingMeta }> {
  return SETTING_NAMES.map((name) => ({ name, meta: settingMeta(fields[name])! }));
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
    description: "`TELNYX_API_KEY` requires `TELNYX_PUBLIC_KEY` (base64 of the 32-byte Ed25519 key): Telnyx's webhooks cannot be verified without it.",
    check: (raw) => {
      if (raw.TELNYX_PUBLIC_KEY && Buffer.from(raw.TELNYX_PUBLIC_KEY, "base64").length !== 32) return ["TELNYX_PUBLIC_KEY: not a base64 Ed25519 public key (32 bytes), as Mission Control shows it."];
      return raw.TELNYX_API_KEY && !raw.TELNYX_PUBLIC_KEY ? ["TELNYX_PUBLIC_KEY: required with TELNYX_API_KEY (Telnyx's webhooks are verified with it)."] : [];
    },
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
      const name = raw.VOICE_ENGINE?.toLowerCase() ?? "";
      // An unknown name is VOICE_ENGINE's own problem (its setting lists the names); the default needs nothing.
      if (!isCarrierName(name)) return [];
      try {
        voiceCarrier(name).readSettings(raw);
        return [];
      } catch (error) {
        if (error instanceof VoiceSettingsError) return [error.message];
        throw error;
      }
    },
  },
];

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
      const meta = settingMeta(fields[name]);
      const value = raw[name];
      const shown = meta?.secret || value === undefined ? "" : ` (got ${JSON.stringify(value.length > 80 ? `${value.slice(0, 80)}…` : value)})`;
      problems.push(`${name}: ${issue.message}${shown}.`);
    }
  }
  for (const rule of CROSS_FIELD_RULES) problems.push(...rule.check(raw));
  if (problems.length > 0) throw new ConfigError(problems);
  return Object.freeze({ ...parsed.data!, raw: Object.freeze(raw) });
}

/**
 * The cached configuration, one per process (server/runtime/process-singleton.ts): Next.js loads this module once per
 * bundle, and every copy must agree. A holder, so the start scripts and tests can replace or drop what it holds.
 */
function cache(): { config?: LoadedConfig } {
  return processSingleton("appConfig", () => ({}));
}

/** The configuration of this process, validated once from `process.env` and cached. */
export function getConfig(): LoadedConfig {
  const holder = cache();
  holder.config ??= loadConfig(process.env);
  return holder.config;
}

/** Tests: forget the cached configuration, so the next getConfig() reads `process.env` again. */
export function resetConfigForTests(): void {
  cache().config = undefined;
}

/**
 * The start scripts: after filling in what embedded mode generates (the embedded DATABASE_URL, generated secrets),
 * validate the final environment and make it this process's configuration.
 */
export function reloadConfig(): LoadedConfig {
  const holder = cache();
  holder.config = loadConfig(process.env);
  return holder.config;
}
