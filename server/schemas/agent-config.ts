import { z } from "zod";
import { extractedVariableTypes } from "@/db/schema";
import { ZAgentStatusSchema, ZStepInputSchema, ZStepSchema } from "./agent";
import {
  MAX_AGENT_DEFINITIONS,
  MAX_AGENT_PHONE_NUMBERS,
  MAX_AGENT_STEPS,
  MAX_AGENT_TIMEZONES,
  MAX_CONFIG_VALUE_LENGTH,
  MAX_DATETIME_LENGTH,
  MAX_DESCRIPTION_LENGTH,
  MAX_DROPDOWN_OPTIONS,
  MAX_NAME_LENGTH,
  MAX_PHONE_NUMBER_LENGTH,
  MAX_PROMPT_LENGTH,
  MAX_SLUG_LENGTH,
  MAX_TIMEZONE_LENGTH,
} from "./limits";
import { ANSWER_MOVES, type EffectiveAnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import type { AnswerClass } from "@/server/voice/answer-classifier/types";
import { boundedText as text, idText } from "./text";
import {
  MAX_TRANSFER_TARGETS,
  PHONE_MENU_GOAL_MAX_LENGTH,
  TRANSFER_ANSWER_TIMEOUT_SECONDS,
  TRANSFER_FALLBACKS,
  TRANSFER_HOURS_MAX_LENGTH,
  TRANSFER_LABEL_MAX_LENGTH,
  TRANSFER_MODES,
  TRANSFER_WHEN_TO_USE_MAX_LENGTH,
} from "@/server/voice/transfer-settings";
import { greetingModes } from "@/db/schema/call-quality";
import { CALL_PURPOSE_MAX_LENGTH, MAX_CALL_SECONDS, REALTIME_VOICES, RING_TIMEOUT_SECONDS, VOICEMAIL_MESSAGE_MAX_LENGTH } from "@/server/voice/agent-voice-settings";
import { ANSWERED_BY_ALLOWED_ACTIONS } from "@/server/voice/call-quality";
import { DISCLOSURE_MAX_LENGTH, disclosureTextProblem, RECORDING_NOTICE_MODES } from "@/server/services/privacy/disclosure-texts";

/** A disclosure text: known placeholders only; empty means the default. */
const ZDisclosureText = z.string().max(DISCLOSURE_MAX_LENGTH).superRefine((value, ctx) => {
  const problem = value.trim() ? disclosureTextProblem(value) : null;
  if (problem) ctx.addIssue({ code: "custom", message: `the disclosure ${problem}` });
});

export const ZBookingConfigSchema = z.object({
  mode: z.enum(["link", "crm", "concierge"]),
  provider: z.literal("chili-piper"),
  schedulingLinkId: text(MAX_CONFIG_VALUE_LENGTH).optional(),
  routerId: text(MAX_CONFIG_VALUE_LENGTH).optional(),
  distributionId: text(MAX_CONFIG_VALUE_LENGTH).optional(),
  workspaceId: text(MAX_CONFIG_VALUE_LENGTH).optional(),
  bookerId: text(MAX_CONFIG_VALUE_LENGTH).optional(),
  conciergeRouterId: text(MAX_CONFIG_VALUE_LENGTH).optional(),
});

/** Per class of answerer, one of the actions that class allows (server/voice/call-quality.ts). */
const ZAnsweredByActionsSchema = z
  .object({
    machine: z.enum(ANSWERED_BY_ALLOWED_ACTIONS.machine).optional(),
    fax: z.enum(ANSWERED_BY_ALLOWED_ACTIONS.fax).optional(),
    ivr: z.enum(ANSWERED_BY_ALLOWED_ACTIONS.ivr).optional(),
    screener: z.enum(ANSWERED_BY_ALLOWED_ACTIONS.screener).optional(),
    unknown: z.enum(ANSWERED_BY_ALLOWED_ACTIONS.unknown).optional(),
  })
  .strict();

const ANSWER_CLASS_LIST = Object.keys(ANSWER_MOVES).join(", ");
type ZAnswerMoveShape = { [K in AnswerClass]: z.ZodOptional<z.ZodEnum<{ [M in EffectiveAnswerMoves[K]]: M }>> };

/**
 * Per class the answer classifier decides, one of the moves that class allows (server/voice/answer-classifier/
 * answer-moves.ts, walked here): an unknown class or a move the class does not allow is a field error.
 */
const ZAnswerMovesSchema = z
  .object(
    Object.fromEntries(
      Object.entries(ANSWER_MOVES).map(([answerClass, moves]) => [
        answerClass,
        z.enum(moves, { error: () => `${answerClass} allows ${moves.map((move) => `"${move}"`).join(", ")}` }).optional(),
      ]),
    ) as unknown as ZAnswerMoveShape,
    { error: (issue) => (issue.code === "unrecognized_keys" ? `unknown class ${issue.keys.map((key) => `"${key}"`).join(", ")}; the classes are ${ANSWER_CLASS_LIST}` : undefined) },
  )
  .strict();

/** Settings of the real voice engine (Twilio + OpenAI Realtime); left out on update = unchanged. */
const ZAgentVoiceSettingsFields = {
  voicemailMessage: z
    .string()
    .max(VOICEMAIL_MESSAGE_MAX_LENGTH)
    .nullable()
    .optional()
    .describe("Spoken after the beep when a call reaches voicemail; empty or null leaves no message."),
  ringTimeoutSeconds: z.number().int().min(RING_TIMEOUT_SECONDS.min).max(RING_TIMEOUT_SECONDS.max).optional().describe("Seconds the phone rings before the call counts as not answered."),
  maxCallSeconds: z.number().int().min(MAX_CALL_SECONDS.min).max(MAX_CALL_SECONDS.max).optional().describe("The longest a connected call may last, in seconds."),
  voice: z.enum(REALTIME_VOICES).optional().describe("The speech-to-speech voice of the agent."),
  greetingMode: z.enum(greetingModes).optional().describe("`on-answer`: the agent greets as soon as the call is answered; `wait-for-callee`: it lets the callee speak first."),
  callPurpose: z.string().max(CALL_PURPOSE_MAX_LENGTH).nullable().optional().describe("Why the agent calls, in a few words (\"about your recent enquiry\"): what it tells an automated call screener."),
  answeredByActions: ZAnsweredByActionsSchema.optional().describe("What the agent does when a machine, fax, phone menu, call screener or unknown answerer picks up; left-out classes take the defaults."),
  answerMoves: ZAnswerMovesSchema.optional().describe(
    "The agent's move for each class of answerer the answer classifier decides (human, voicemail, ivr, screener, fax, intercept, hold-queue); a partial map that replaces the stored one, left-out classes take the defaults (docs/call-quality.md, \"Moves\").",
  ),
  disclosureIdentification: ZDisclosureText.nullable()
    .optional()
    .describe("Spoken word for word first on every connected call: who is calling, that it is an automated assistant, why. `{organization}` and `{agent}` are filled in; null = the default text (docs/compliance.md)."),
  disclosureRecordingNotice: ZDisclosureText.nullable()
    .optional()
    .describe("Spoken word for word after the identification where a recording notice is needed; null = the default text."),
  recordingNoticeMode: z
    .enum(RECORDING_NOTICE_MODES)
    .optional()
    .describe("`by-state`: the notice where the number's area code maps to an all-party-consent state; `always`: on every call."),
};

/** Handing a call to a person (docs/call-engine.md "Transfers"); null = the agent never transfers. */
export const ZTransferConfigSchema = z.object({
  mode: z.enum(TRANSFER_MODES).describe("`cold`: the caller is put through and the agent leaves; `warm`: the caller waits on hold, the person hears a summary first."),
  targets: z
    .array(
      z.object({
        label: text(TRANSFER_LABEL_MAX_LENGTH).describe("What the agent calls this target (e.g. sales, billing)."),
        destination: text(MAX_CONFIG_VALUE_LENGTH).describe("An E.164 number or a SIP URI (sip:user@host)."),
        whenToUse: z.string().max(TRANSFER_WHEN_TO_USE_MAX_LENGTH).default("").describe("When the agent should choose this target."),
      }),
    )
    .max(MAX_TRANSFER_TARGETS),
  answerTimeoutSeconds: z
    .number()
    .int()
    .min(TRANSFER_ANSWER_TIMEOUT_SECONDS.min)
    .max(TRANSFER_ANSWER_TIMEOUT_SECONDS.max)
    .nullable()
    .default(null)
    .describe("Seconds the target may ring before the agent comes back to the caller (required for warm transfers)."),
  hours: z.string().max(TRANSFER_HOURS_MAX_LENGTH).nullable().default(null).describe("When a person can take a call, e.g. `Mon-Fri 09:00-17:00; Sat 10:00-13:00`; null = always."),
  timezone: z.string().max(MAX_TIMEZONE_LENGTH).nullable().default(null).describe("The hours' IANA timezone; null = the agent's first timezone."),
  fallback: z.enum(TRANSFER_FALLBACKS).default("callback").describe("What the agent offers when nobody can take the call."),
});

/** Handing over and phone menus; left out on update = unchanged. */
const ZAgentCallHandlingFields = {
  transferConfig: ZTransferConfigSchema.nullable().optional(),
  phoneMenuGoal: z
    .string()
    .max(PHONE_MENU_GOAL_MAX_LENGTH)
    .nullable()
    .optional()
    .describe("Where to go when a call reaches a phone menu (e.g. \"the sales team\"); empty = a person."),
};

/** What input and extracted variables share in the editor's document; an id marks an existing definition. */
const ZDefinitionInputFields = {
  id: idText().optional(),
  slug: text(MAX_SLUG_LENGTH),
  displayName: text(MAX_NAME_LENGTH),
  description: text(MAX_DESCRIPTION_LENGTH),
};

/** Everything an admin edits on an agent in the console, as one document (create and update). */
export const ZAgentConfigSchema = z.object({
  name: text(MAX_NAME_LENGTH).trim().min(1, "Name is required."),
  status: ZAgentStatusSchema,
  timezones: z.array(text(MAX_TIMEZONE_LENGTH)).min(1, "Add at least one timezone.").max(MAX_AGENT_TIMEZONES),
  phoneNumbers: z.array(text(MAX_PHONE_NUMBER_LENGTH)).max(MAX_AGENT_PHONE_NUMBERS),
  steps: z.array(ZStepInputSchema).min(1, "Add at least one step.").max(MAX_AGENT_STEPS),
  prompt: text(MAX_PROMPT_LENGTH).trim().min(1, "The prompt is required."),
  bookingConfig: ZBookingConfigSchema.nullable(),
  inputVariables: z
    .array(
      z.object({ ...ZDefinitionInputFields, required: z.boolean() }),
    )
    .max(MAX_AGENT_DEFINITIONS),
  extractedVariables: z
    .array(
      z.object({
        ...ZDefinitionInputFields,
        type: z.enum(extractedVariableTypes),
        dropdownOptions: z.array(text(MAX_NAME_LENGTH)).max(MAX_DROPDOWN_OPTIONS).nullable().optional(),
        datetimeFormat: text(MAX_DATETIME_LENGTH).nullable().optional(),
        formatDatetimeInUtc: z.boolean().nullable().optional(),
      }),
    )
    .max(MAX_AGENT_DEFINITIONS),
  outcomes: z
    .array(
      z.object({ id: idText().optional(), name: text(MAX_NAME_LENGTH), description: text(MAX_DESCRIPTION_LENGTH), enabled: z.boolean() }),
    )
    .max(MAX_AGENT_DEFINITIONS),
  ...ZAgentVoiceSettingsFields,
  ...ZAgentCallHandlingFields,
  replyEndsSequence: z.boolean().optional().describe("Any SMS reply from the contact ends the sequence as `done` (an opt-out always does); left out = unchanged."),
});

/** An agent as the console's editor shows it: the document plus its history and the definitions' flags. */
export const ZConsoleAgentSchema = z.object({
  agentId: z.string(),
  name: z.string(),
  status: ZAgentStatusSchema,
  timezones: z.array(z.string()),
  phoneNumbers: z.array(z.string()),
  steps: z.array(ZStepSchema),
  bookingConfig: ZBookingConfigSchema.nullable(),
  createdAt: z.string(),
  updatedAt: z.string(),
  prompt: z.string(),
  promptVersionId: z.string().nullable(),
  promptVersions: z.array(z.object({ promptVersionId: z.string(), createdAt: z.string(), current: z.boolean(), preview: z.string() })),
  inputVariables: z.array(z.object({ id: z.string(), slug: z.string(), displayName: z.string(), description: z.string(), required: z.boolean() })),
  extractedVariables: z.array(
    z.object({
      id: z.string(),
      slug: z.string(),
      displayName: z.string(),
      description: z.string(),
      type: z.enum(extractedVariableTypes),
      dropdownOptions: z.array(z.string()).nullable(),
      datetimeFormat: z.string().nullable(),
      formatDatetimeInUtc: z.boolean().nullable(),
      systemDefault: z.boolean(),
    }),
  ),
  outcomes: z.array(z.object({ id: z.string(), name: z.string(), description: z.string(), enabled: z.boolean(), customerDefined: z.boolean() })),
  voicemailMessage: z.string().nullable(),
  ringTimeoutSeconds: z.number().int(),
  maxCallSeconds: z.number().int(),
  voice: z.enum(REALTIME_VOICES),
  transferConfig: ZTransferConfigSchema.nullable(),
  phoneMenuGoal: z.string().nullable(),
  greetingMode: z.enum(greetingModes),
  callPurpose: z.string().nullable(),
  answeredByActions: ZAnsweredByActionsSchema.required(),
  answerMoves: ZAnswerMovesSchema.required(),
  disclosureIdentification: z.string().nullable(),
  disclosureRecordingNotice: z.string().nullable(),
  recordingNoticeMode: z.enum(RECORDING_NOTICE_MODES),
  replyEndsSequence: z.boolean(),
});

/** One row of the console's agent list. */
export const ZConsoleAgentSummarySchema = z.object({
  agentId: z.string(),
  name: z.string(),
  status: ZAgentStatusSchema,
  timezone: z.string().nullable(),
  stepCount: z.number().int(),
  updatedAt: z.string(),
});

export const ZPageInfoSchema = z.object({ page: z.number().int(), pageSize: z.number().int(), totalItems: z.number().int(), totalPages: z.number().int() });

export type TBookingConfig = z.infer<typeof ZBookingConfigSchema>;
export type TAgentConfig = z.infer<typeof ZAgentConfigSchema>;
export type TConsoleAgent = z.infer<typeof ZConsoleAgentSchema>;
export type TConsoleAgentSummary = z.infer<typeof ZConsoleAgentSummarySchema>;
export type TPageInfo = z.infer<typeof ZPageInfoSchema>;
