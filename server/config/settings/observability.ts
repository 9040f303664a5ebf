import { settingsOf } from "./setting";
import { flag, oneOf, text, wholeNumber } from "./value-types";

/** Logs, metrics and shutdown (server/observability, server/http/ops-routes.ts, server/runtime/shutdown.ts). */
const setting = settingsOf("Logs, metrics and shutdown");

export const observabilitySettings = {
  LOG_LEVEL: setting(oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"] as const).default("info"), {
    description: "Least severe level written. Health and metrics requests are logged at `debug`.",
    default: "`info`",
  }),
  LOG_FORMAT: setting(oneOf(["json", "pretty"] as const).optional(), {
    description: "`json`: one JSON object per line (pino); `pretty`: human-readable (needs the dev dependency `pino-pretty`).",
    default: "`pretty` under `npm run dev`, else `json`",
  }),
  LOG_FILE: setting(text().optional(), {
    description: "Append the JSON log lines to this file instead of standard output (the test suite uses it to scan its logs).",
    default: "standard output",
  }),
  METRICS_TOKEN: setting(text().min(16, { error: "must be at least 16 characters" }).optional(), {
    description: "Bearer token for `GET /metrics` from other machines.",
    default: "unset: `/metrics` answers loopback clients only",
    secret: true,
  }),
  STAGE_CPU_ACCOUNTING: setting(flag().default(false), {
    description:
      "Times the app's CPU by pipeline stage (enrollment, dispatch, voice events, finalize, analysis, webhook, runner, HTTP) as `app_stage_cpu_seconds_total{stage}` on `/metrics`. For benchmarks (`bench/campaign.ts`): its async hook costs CPU itself.",
    default: "`false`",
  }),
  SHUTDOWN_TIMEOUT_SECONDS: setting(wholeNumber(1, 3600).default(25), {
    description: "On SIGTERM: readiness turns 503, the server stops accepting, in-flight requests and background steps finish, then the database closes — all within this bound (keep it below the orchestrator's kill timeout).",
    default: "`25`",
  }),
};
