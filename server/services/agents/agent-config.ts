import type { DbOrTx } from "@/db";
import type { BookingConfig, ExtractedVariableType, TransferConfig } from "@/db/schema";
import { transferConfigIssues } from "@/server/voice/transfer-settings";
import { AppError, invalidField } from "@/server/errors";
import type { TAgentConfig } from "@/server/schemas/agent-config";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { normalizePhoneNumber } from "@/server/services/phone/normalize-phone-number";
import { canonicalTimezone } from "@/server/services/phone/timezones";
import { STEP_TEMPLATE_FIELDS } from "@/server/services/sequences/step-kinds";
import {
  countSmsSegments,
  findUnknownTemplateVariable,
  knownTemplateVariables,
  MAX_SMS_SEGMENTS,
  renderTemplate,
  sampleTemplateValues,
} from "@/server/services/sequences/message-template";

/**
 * The agents row's own fields from the document: create and update write the same ones. An agent that is not PAUSED
 * has no pause reason: setting it ACTIVE again (e.g. after an auto-pause) clears the reason and its source.
 */
export function agentFieldsOf(config: TAgentConfig) {
  return {
    name: config.name,
    status: config.status,
    ...(config.status === "PAUSED" ? {} : { pauseReason: null, pauseSource: null }),
    timezones: config.timezones,
    phoneNumbers: config.phoneNumbers,
    steps: config.steps,
    bookingConfig: config.bookingConfig,
    ...(config.replyEndsSequence === undefined ? {} : { replyEndsSequence: config.replyEndsSequence }),
  };
}

/** An extracted variable's definition fields, settings a type does not use stored and shown as null. */
export function extractedVariableFieldsOf(variable: {
  slug: string;
  displayName: string;
  description: string;
  type: ExtractedVariableType;
  dropdownOptions?: string[] | null;
  datetimeFormat?: string | null;
  formatDatetimeInUtc?: boolean | null;
}) {
  return {
    slug: variable.slug,
    displayName: variable.displayName,
    description: variable.description,
    type: variable.type,
    dropdownOptions: variable.dropdownOptions ?? null,
    datetimeFormat: variable.datetimeFormat ?? null,
    formatDatetimeInUtc: variable.formatDatetimeInUtc ?? null,
  };
}

const SLUG = /^[a-z][a-z0-9_]{0,63}$/;
/** Luxon/Unicode date tokens we accept in a DATE/TIME format: letters must be known tokens, anything else literal. */
const DATETIME_TOKENS = /^(?:'[^']*'|yyyy|yy|MM|M|dd|d|HH|H|hh|h|mm|m|ss|s|SSS|a|ZZ|Z|EEE|EEEE|MMM|MMMM|[^A-Za-z'])+$/;
const REQUIRED_BOOKING_FIELDS: Record<BookingConfig["mode"], Array<keyof BookingConfig>> = {
  link: ["schedulingLinkId"],
  crm: ["routerId", "distributionId", "workspaceId", "bookerId"],
  concierge: ["conciergeRouterId"],
};

function invalid(path: string, message: string): never {
  // INVALID_REQUEST: the configuration breaks a rule; the message names the field like the API's validation errors.
  throw invalidField(path, message);
}

/**
 * The rules the API relies on when it schedules with this agent (valid IANA zones, E.164 pool, windows inside a day,
 * unique slugs, typed extraction settings, complete booking mode). Returns the normalized configuration.
 */
export function normalizeAgentConfig(config: TAgentConfig): TAgentConfig {
  const name = config.name.trim();
  if (!name) invalid("name", "is required");

  if (config.timezones.length === 0) invalid("timezones", "at least one timezone is required");
  const timezones = config.timezones.map((zone, i) => canonicalTimezone(zone) ?? invalid(`timezones.${i}`, `"${zone}" is not an IANA timezone`));

  const phoneNumbers = config.phoneNumbers.map((raw, i) => normalizePhoneNumber(raw)?.e164 ?? invalid(`phoneNumbers.${i}`, `"${raw}" is not a valid phone number`));
  if (new Set(phoneNumbers).size !== phoneNumbers.length) invalid("phoneNumbers", "the pool lists a number twice");

  if (config.steps.length === 0) invalid("steps", "at least one step is required");
  config.steps.forEach((step, i) => {
    const { startTime, endTime } = step.executionWindowConfig.timeWindow;
    if (startTime >= endTime) invalid(`steps.${i}.executionWindowConfig.timeWindow`, `the window must end after it starts`);
    if (step.delaySecondsMax !== null && step.delaySecondsMax < step.delaySeconds) {
      invalid(`steps.${i}.delaySecondsMax`, `must be at least delaySeconds`);
    }
  });

  const inputSlugs = new Set<string>();
  const inputVariables = config.inputVariables.map((v, i) => {
    const slug = v.slug.trim();
    if (!SLUG.test(slug)) invalid(`inputVariables.${i}.slug`, `use lowercase letters, digits and underscores, starting with a letter`);
    if (inputSlugs.has(slug)) invalid(`inputVariables.${i}.slug`, `"${slug}" is used twice`);
    inputSlugs.add(slug);
    return { ...v, slug, displayName: v.displayName.trim() || slug, description: v.description.trim() };
  });

  const extractedSlugs = new Set<string>();
  const extractedVariables = config.extractedVariables.map((v, i) => {
    const slug = v.slug.trim();
    if (!SLUG.test(slug)) invalid(`extractedVariables.${i}.slug`, `use lowercase letters, digits and underscores, starting with a letter`);
    if (extractedSlugs.has(slug)) invalid(`extractedVariables.${i}.slug`, `"${slug}" is used twice`);
    extractedSlugs.add(slug);
    const base = { id: v.id, slug, displayName: v.displayName.trim() || slug, description: v.description.trim(), type: v.type };
    if (v.type === "DROPDOWN") {
      const options = (v.dropdownOptions ?? []).map((o) => o.trim()).filter(Boolean);
      if (options.length === 0) invalid(`extractedVariables.${i}.dropdownOptions`, `a dropdown needs at least one option`);
      if (new Set(options).size !== options.length) invalid(`extractedVariables.${i}.dropdownOptions`, `an option is listed twice`);
      return { ...base, dropdownOptions: options, datetimeFormat: null, formatDatetimeInUtc: null };
    }
    if (v.type === "DATE/TIME") {
      const format = (v.datetimeFormat ?? "").trim() || "yyyy-MM-dd HH:mm:ss";
      if (!DATETIME_TOKENS.test(format)) invalid(`extractedVariables.${i}.datetimeFormat`, `"${format}" is not a date/time pattern such as yyyy-MM-dd HH:mm:ss`);
      return { ...base, dropdownOptions: null, datetimeFormat: format, formatDatetimeInUtc: v.formatDatetimeInUtc ?? false };
    }
    return { ...base, dropdownOptions: null, datetimeFormat: null, formatDatetimeInUtc: null };
  });

  const steps = normalizeStepTemplates(config.steps, { agentName: name, inputVariables });

  const outcomeNames = new Set<string>();
  const outcomes = config.outcomes.map((o, i) => {
    const outcomeName = o.name.trim();
    if (!outcomeName) invalid(`outcomes.${i}.name`, `is required`);
    if (outcomeNames.has(outcomeName.toLowerCase())) invalid(`outcomes.${i}.name`, `"${outcomeName}" is used twice`);
    outcomeNames.add(outcomeName.toLowerCase());
    return { ...o, name: outcomeName, description: o.description.trim() };
  });

  let bookingConfig: BookingConfig | null = null;
  if (config.bookingConfig) {
    const mode = config.bookingConfig.mode;
    // Fields of other modes are dropped (no fallback); fields the provider check adds (workspaceId) are kept.
    bookingConfig = { mode, provider: config.bookingConfig.provider, workspaceId: config.bookingConfig.workspaceId?.trim() || undefined };
    for (const field of REQUIRED_BOOKING_FIELDS[mode]) {
      const value = config.bookingConfig[field]?.toString().trim();
      if (!value) invalid(`bookingConfig.${field}`, `is required in ${mode} mode`);
      (bookingConfig as Record<string, string>)[field] = value;
    }
  }

  const prompt = config.prompt.trim();
  if (!prompt) invalid("prompt", "is required");
  // An empty message means none; undefined (left out) keeps what is stored.
  const voicemailMessage = config.voicemailMessage === undefined ? undefined : config.voicemailMessage?.trim() || null;
  const transferConfig = config.transferConfig ? normalizeTransferConfig(config.transferConfig) : config.transferConfig;
  const phoneMenuGoal = config.phoneMenuGoal === undefined ? undefined : config.phoneMenuGoal?.trim() || null;

  return { ...config, name, timezones, phoneNumbers, steps, inputVariables, extractedVariables, outcomes, bookingConfig, prompt, voicemailMessage, transferConfig, phoneMenuGoal };
}

/**
 * Trimmed, checked as a whole (transfer-settings.ts): every broken rule is reported at once, each with its field
 * (`details.issues[].path`), and the message names the first ones.
 */
function normalizeTransferConfig(config: TransferConfig): TransferConfig {
  const normalized: TransferConfig = {
    ...config,
    targets: config.targets.map((target) => ({ label: target.label.trim(), destination: target.destination.trim(), whenToUse: target.whenToUse.trim() })),
    hours: config.hours?.trim() || null,
    timezone: config.timezone?.trim() || null,
  };
  const issues = transferConfigIssues(normalized, (zone) => canonicalTimezone(zone) !== null);
  if (issues.length > 0) {
    throw new AppError("INVALID_REQUEST", issues.slice(0, 3).map((issue) => `${issue.path}: ${issue.message}`).join("; "), { issues });
  }
  return { ...normalized, timezone: normalized.timezone ? canonicalTimezone(normalized.timezone) : null };
}

/**
 * EMAIL and SMS steps carry their templates (CALL steps none): an EMAIL needs a subject and a body, an SMS a body;
 * every `{{variable}}` must be a built-in or one of the agent's input variables (the error names it); an SMS rendered
 * for the sample contact must fit MAX_SMS_SEGMENTS segments.
 */
function normalizeStepTemplates(steps: TAgentConfig["steps"], agent: { agentName: string; inputVariables: Array<{ slug: string; displayName: string }> }): TAgentConfig["steps"] {
  const known = knownTemplateVariables(agent.inputVariables.map((variable) => variable.slug));
  const sample = sampleTemplateValues({ agentName: agent.agentName, inputVariables: agent.inputVariables });
  return steps.map((step, i) => {
    const fields = STEP_TEMPLATE_FIELDS[step.stepType];
    if (!fields.body) {
      const { subject: _subject, body: _body, ...call } = step;
      return call;
    }
    const body = step.body?.trim() ?? "";
    if (!body) invalid(`steps.${i}.body`, `an ${step.stepType} step needs a message`);
    const subject = fields.subject ? (step.subject?.trim() ?? "") : null;
    if (fields.subject && !subject) invalid(`steps.${i}.subject`, `an ${step.stepType} step needs a subject`);
    for (const [field, template] of [["subject", subject], ["body", body]] as const) {
      const unknown = template === null ? null : findUnknownTemplateVariable(template, known);
      if (unknown !== null) invalid(`steps.${i}.${field}`, `unknown template variable {{${unknown}}} (use ${[...known].map((name) => `{{${name}}}`).join(", ")})`);
    }
    if (step.stepType === "SMS") {
      const count = countSmsSegments(renderTemplate(body, sample));
      if (count.segments > MAX_SMS_SEGMENTS) invalid(`steps.${i}.body`, `the message takes ${count.segments} SMS segments for the sample contact (at most ${MAX_SMS_SEGMENTS})`);
    }
    return { ...step, subject, body };
  });
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v) =>
    v && typeof v === "object" && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).filter(([, x]) => x !== undefined).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );
}

/**
 * The booking configuration to store. A new or changed one is checked against the organization's provider
 * (permissions for the mode, the link / router / distribution exist) by the calendar service, before any write;
 * an unchanged one is kept as stored, so saving other fields never depends on the provider being reachable.
 */
export async function resolveBookingConfig(
  db: DbOrTx,
  params: { organizationId: string; requested: BookingConfig | null; stored: BookingConfig | null },
): Promise<BookingConfig | null> {
  if (!params.requested) return null;
  if (params.stored && canonicalJson(params.requested) === canonicalJson(params.stored)) return params.stored;
  return validateBookingConfig(db, { organizationId: params.organizationId, bookingConfig: params.requested });
}
