import { ZSequenceMessageSchema } from "./message";
import { z } from "zod";
import { ZStepSchema } from "./agent";
import { ZConsentRecordSchema } from "./consent";
import { MAX_VARIABLE_NAME_LENGTH, MAX_VARIABLE_VALUE_LENGTH } from "./limits";
import { boundedText, idText } from "./text";

/**
 * A JSON boolean, and only that. trpc-to-openapi switches `z.boolean()` fields of REST bodies to coercion
 * (`Boolean("false") === true`), so body booleans use this schema, which it leaves alone.
 */
export const ZJsonBooleanSchema = z
  .custom<boolean>((value) => typeof value === "boolean", { message: "must be a boolean (true or false)" })
  .meta({ override: { type: "boolean" } });

export const ZSequenceIdSchema = z.string().describe("Sequence ID, format `call-sequence.<id>`.");
/** A sequence ID sent by the client. */
export const ZSequenceIdInputSchema = idText().describe("Sequence ID, format `call-sequence.<id>`.");

export const ZLifecycleStatusSchema = z
  .enum(["in progress", "done", "cancelled", "failed"])
  .describe("`in progress` (default), `done`, `cancelled` or `failed`.");

export const ZSequenceSchema = z
  .object({
    sequenceId: ZSequenceIdSchema,
    agentId: z.string().describe("Agent ID, format `agent.<id>`."),
    name: z.string().describe("Contact name."),
    phoneNumber: z.string().describe("E.164."),
    phoneNumberExt: z.string().describe("Extension; empty when none."),
    scheduledAt: z
      .string()
      .nullable()
      .describe(
        "When the first call is due (ISO 8601, UTC), after call windows were applied. Null while a chained contact waits for its turn.",
      ),
    toEmailAddress: z.string().describe("Contact email; empty when none was given."),
    customInputVariables: z.record(z.string(), z.string()).describe("Variables submitted at enrollment (declared or not)."),
    timezone: z.string().describe("IANA timezone of the contact (given, inferred from the number, or the agent's first)."),
    scheduledBy: z.string().describe("Who scheduled it: `api` for API-created sequences, `dashboard` for the dashboard."),
    steps: z.array(ZStepSchema).describe("The agent's steps, copied onto the sequence at enrollment."),
    lifecycleStatus: ZLifecycleStatusSchema,
    chainStatus: z
      .enum(["active", "waiting"])
      .nullable()
      .describe("With `groupByField`: `active` when scheduled, `waiting` while an earlier contact of the group runs; null otherwise."),
    createdAt: z.string().describe("ISO 8601."),
    consent: ZConsentRecordSchema.nullable().describe("The contact's consent record as given at enrollment; null when none was given."),
  })
  .describe("A contact's calling sequence.");

export type TSequence = z.infer<typeof ZSequenceSchema>;

/** A cancel reference: a custom input variable and the exact value it must equal, within the limits of both. */
export const ZSequenceReferenceSchema = z.object({
  referenceKey: boundedText(MAX_VARIABLE_NAME_LENGTH).min(1).describe("Name of a custom input variable given at enrollment."),
  referenceValue: boundedText(MAX_VARIABLE_VALUE_LENGTH).min(1).describe("The value it must equal (exact, case-sensitive)."),
});

/*
 * The console's views of sequences (dashboard only, not in /api/v1). Their services return these types.
 */

const ZChainStatusSchema = z.enum(["active", "waiting"]).nullable();

/** What happened to one step of a sequence, as far as its calls tell. */
export const ZStepStateSchema = z.enum(["done", "in progress", "scheduled", "cancelled", "to come", "not run"]);

/** The console's sequence page: the API's Sequence with what the page adds, its steps, calls and chain. */
export const ZSequenceViewSchema = z.object({
  sequence: ZSequenceSchema.extend({
    agentName: z.string(),
    requestedScheduledAt: z.string().nullable().describe("The first-call time asked for at enrollment, if any."),
    batchId: z.string().nullable(),
    updatedAt: z.string(),
    endedAt: z.string().nullable(),
  }),
  steps: z.array(
    ZStepSchema.extend({
      stepNumber: z.number().int(),
      state: ZStepStateSchema,
      callId: z.string().nullable().describe("The latest call of the step, if any."),
      resultType: z.string().nullable(),
      scheduledAt: z.string().nullable().describe("When the latest call of the step was (or is) scheduled."),
    }),
  ),
  messages: z
    .array(ZSequenceMessageSchema.extend({ html: z.string().nullable().describe("EMAIL: the rendered HTML part."), transport: z.string().nullable().describe("smtp, outbox or twilio.") }))
    .describe("EMAIL and SMS steps and SMS replies, in the order they came."),
  canSimulateCallback: z.boolean().describe("The embedded voice simulator runs and the contact was called: the console can play a callback."),
  calls: z.array(
    z.object({
      callId: z.string(),
      stepNumber: z.number().int(),
      direction: z.string().describe("`outbound`, or `inbound` (a callback: step 0)."),
      attempt: z.number().int(),
      scheduledAt: z.string(),
      endedAt: z.string().nullable(),
      resultType: z.string(),
      callStatus: z.string(),
      duration: z.number().int(),
      hasRecording: z.boolean(),
      hasTranscript: z.boolean(),
      hasMeeting: z.boolean(),
    }),
  ),
  chain: z
    .object({
      groupByField: z.string().nullable(),
      groupValue: z.string(),
      position: z.number().int().nullable(),
      chainStatus: ZChainStatusSchema,
      waitingCount: z.number().int().describe("In-progress members still waiting for their turn."),
      members: z
        .array(
          z.object({
            sequenceId: z.string(),
            name: z.string(),
            phoneNumber: z.string(),
            position: z.number().int().nullable(),
            chainStatus: ZChainStatusSchema,
            lifecycleStatus: ZLifecycleStatusSchema,
          }),
        )
        .describe("The group's members in chain order."),
      truncated: z.boolean().describe("True when the group has more members than listed."),
    })
    .nullable()
    .describe("Contact chaining (groupByField); null for a sequence that is not chained."),
});

/** One row of a conversation search page in the console. */
export const ZSequenceSummarySchema = z.object({
  sequenceId: z.string(),
  agentId: z.string(),
  agentName: z.string(),
  name: z.string(),
  phoneNumber: z.string(),
  timezone: z.string(),
  lifecycleStatus: ZLifecycleStatusSchema,
  callCount: z.number().int(),
  firstScheduledAt: z.string().nullable(),
  lastCall: z
    .object({
      callId: z.string(),
      stepNumber: z.number().int(),
      resultType: z.string(),
      callStatus: z.string(),
      scheduledAt: z.string(),
      hasRecording: z.boolean(),
      hasTranscript: z.boolean(),
    })
    .nullable(),
});

export type TStepState = z.infer<typeof ZStepStateSchema>;
export type TSequenceView = z.infer<typeof ZSequenceViewSchema>;
export type TSequenceSummary = z.infer<typeof ZSequenceSummarySchema>;
