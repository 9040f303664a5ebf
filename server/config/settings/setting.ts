import { z } from "zod";

/**
 * How a setting is declared: its zod schema (./value-types.ts) with this metadata, which docs/configuration.md is
 * generated from. Each file of this folder declares one group's settings with `settingsOf(group)`; ../env.ts joins
 * them into one schema and validates them.
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

/** The sections of docs/configuration.md, in order. */
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
  "Telnyx (SMS and numbers)",
  "Calendar provider",
  "Recordings",
  "Webhooks",
  "Logs, metrics and shutdown",
] as const;
export type SettingGroup = (typeof SETTING_GROUPS)[number];

const registry = z.registry<SettingMeta>();

/** `setting(schema, meta)` for the settings of `group`: records the metadata and returns the schema. */
export function settingsOf(group: SettingGroup) {
  return function setting<T extends z.ZodType>(schema: T, meta: Omit<SettingMeta, "group">): T {
    registry.add(schema, { group, ...meta });
    return schema;
  };
}

/** The metadata a setting's schema was declared with. */
export function settingMeta(schema: z.ZodType): SettingMeta | undefined {
  return registry.get(schema);
}
