import { z } from "zod";
import { extractedVariableTypes } from "@/db/schema";
import { ZAgentIdSchema, ZAgentStatusSchema, ZStepSchema } from "@/server/schemas/agent";
import { MAX_CALL_SECONDS, REALTIME_VOICES, RING_TIMEOUT_SECONDS, VOICEMAIL_MESSAGE_MAX_LENGTH } from "@/server/voice/agent-voice-settings";

const text = (max: number) => z.string().max(max);

export const ZBookingConfigSchema = z.object({
  mode: z.enum(["link", "crm", "concierge"]),
  provider: z.literal("chili-piper"),
  schedulingLinkId: text(200).optional(),
  routerId: text(200).optional(),
  distributionId: text(200).optional(),
  workspaceId: text(200).optional(),
  bookerId: text(200).optional(),
  conciergeRouterId: text(200).optional(),
});

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
};

export const ZAgentConfigSchema = z.object({
  name: z.string().trim().min(1, "Name is required.").max(200),
  status: ZAgentStatusSchema,
  timezones: z.array(text(64)).min(1, "Add at least one timezone.").max(10),
  phoneNumbers: z.array(text(64)).max(50),
  steps: z.array(ZStepSchema).min(1, "Add at least one step.").max(20),
  prompt: z.string().trim().min(1, "The prompt is required.").max(20_000),
  bookingConfig: ZBookingConfigSchema.nullable(),
  inputVariables: z
    .array(
      z.object({
        id: z.string().optional(),
        slug: text(64),
        displayName: text(200),
        description: text(1000),
        required: z.boolean(),
      }),
    )
    .max(100),
  extractedVariables: z
    .array(
      z.object({
        id: z.string().optional(),
        slug: text(64),
        displayName: text(200),
        description: text(1000),
        type: z.enum(extractedVariableTypes),
        dropdownOptions: z.array(text(200)).max(100).nullable().optional(),
        datetimeFormat: text(64).nullable().optional(),
        formatDatetimeInUtc: z.boolean().nullable().optional(),
      }),
    )
    .max(100),
  outcomes: z
    .array(z.object({ id: z.string().optional(), name: text(200), description: text(1000), enabled: z.boolean() }))
    .max(100),
  ...ZAgentVoiceSettingsFields,
});

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
});

export const ZListConsoleAgentsRequestSchema = z.object({
  status: ZAgentStatusSchema.optional(),
  search: z.string().max(200).optional(),
  page: z.number().int().min(1).default(1),
  pageSize: z.number().int().min(1).max(100).default(25).describe("Agents per page (pickers ask for 100)."),
});
export const ZListConsoleAgentsResponseSchema = z.object({
  agents: z.array(
    z.object({
      agentId: z.string(),
      name: z.string(),
      status: ZAgentStatusSchema,
      timezone: z.string().nullable(),
      stepCount: z.number().int(),
      updatedAt: z.string(),
    }),
  ),
  pagination: z.object({ page: z.number().int(), pageSize: z.number().int(), totalItems: z.number().int(), totalPages: z.number().int() }),
});

export const ZGetAgentConfigRequestSchema = z.object({ agentId: ZAgentIdSchema });

export const ZCreateAgentRequestSchema = ZAgentConfigSchema;
export const ZCreateAgentResponseSchema = z.object({ agentId: z.string() });

export const ZUpdateAgentRequestSchema = ZAgentConfigSchema.extend({ agentId: ZAgentIdSchema });
export const ZUpdateAgentResponseSchema = z.object({
  agentId: z.string(),
  promptVersionId: z.string().describe("The current prompt version; new when the prompt changed."),
  promptChanged: z.boolean(),
});
