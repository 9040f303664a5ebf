import { CROSS_FIELD_RULES, describeSettings, SETTING_GROUPS } from "./env";

/**
 * docs/configuration.md, generated from the settings declared in server/config/settings/ and the rules across them in
 * server/config/env.ts (`npm run docs:config`).
 * tests/unit/config/configuration.test.ts fails when the committed file differs from what this renders.
 */
export function renderConfigurationDoc(): string {
  const settings = describeSettings();
  const cell = (text: string) => text.replace(/\|/g, "\\|").replace(/\n/g, " ");
  const lines: string[] = [
    "# Configuration",
    "",
    "<!-- Generated from server/config/settings/ and server/config/env.ts by `npm run docs:config`; edit the declarations there, not this file. -->",
    "",
    "Every setting is an environment variable, read and validated once when the process starts (`server/config/env.ts`).",
    "A bad or missing setting stops `npm start` / `npm run dev` / `npm run seed` with one message listing every problem,",
    "for example:",
    "",
    "```",
    "Invalid configuration (2 problems):",
    '  - PORT: must be a whole number (got "eighty").',
    "  - RECORDING_STORAGE=s3 needs RECORDING_S3_BUCKET.",
    "See docs/configuration.md.",
    "```",
    "",
    "An empty value counts as unset. With no settings at all the app runs on embedded defaults (DESIGN §2): PostgreSQL",
    "from npm in `$DATA_DIR`, the embedded Inngest runner, the simulated voice engine and calendar provider, secrets",
    "generated into `$DATA_DIR`. Secret values are never echoed in error messages or logs. The column *same on every",
    "instance* marks what must be equal on every instance of one deployment ([deploy.md](deploy.md)).",
    "",
    "## Rules across settings",
    "",
    ...CROSS_FIELD_RULES.map((rule) => `- ${rule.description}`),
    "",
  ];
  for (const group of SETTING_GROUPS) {
    const inGroup = settings.filter((setting) => setting.meta.group === group);
    if (inGroup.length === 0) continue;
    lines.push(`## ${group}`, "", "| setting | default | meaning | same on every instance |", "|---|---|---|---|");
    for (const { name, meta } of inGroup) {
      const flags = [meta.secret ? "secret" : null, meta.internal ? "internal: set by the start script" : null].filter(Boolean);
      const meaning = `${meta.description}${flags.length ? ` *(${flags.join("; ")})*` : ""}`;
      lines.push(`| \`${name}\` | ${cell(meta.default ?? "unset")} | ${cell(meaning)} | ${meta.sameOnEveryInstance ? "yes" : ""} |`);
    }
    lines.push("");
  }
  lines.push(
    "## Read by libraries",
    "",
    "The Inngest SDK reads its own variables as well (`INNGEST_SERVE_ORIGIN`, `INNGEST_SERVE_PATH`, `INNGEST_ALLOW_IN_BAND_SYNC`, …;",
    "see Inngest's documentation); Next.js reads `NEXT_TELEMETRY_DISABLED` (the npm scripts set it) and sets `NEXT_RUNTIME`.",
    "",
    "## Code",
    "",
    "| Where | What |",
    "|---|---|",
    "| `server/config/settings/<group>.ts` | Each group's settings: schema (type, bounds, default) and the metadata of this page (`server.ts`, `http-limits.ts`, `database.ts`, `secrets.ts`, `auth.ts`, `mail.ts`, `inngest.ts`, `call-engine.ts`, `analysis.ts`, `sequences.ts`, `twilio-realtime.ts`, `telnyx.ts`, `agent-tests.ts`, `calendar.ts`, `recordings.ts`, `webhooks.ts`, `observability.ts`) |",
    "| `server/config/settings/`: `value-types.ts` · `setting.ts` | The value types and their error messages · the metadata, the groups of this page and `settingsOf(group)` |",
    "| `server/config/env.ts` | Joins the groups (their order is the order of problems in an error), the rules across settings, `loadConfig` / `ConfigError`, the process's cached configuration (`getConfig`) |",
    "| `server/config/settings.ts` | Accessors for what several modules read, with the defaults that depend on other settings |",
    "| `server/config/configuration-doc.ts` · `scripts/docs-config.ts` | This page (`npm run docs:config`) |",
    "| `tests/unit/config/` | The tests: messages, every problem in one error, this page is current, no `process.env` reads elsewhere, one cached configuration per process |",
    "",
  );
  return lines.join("\n");
}
