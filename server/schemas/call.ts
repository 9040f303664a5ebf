import { z } from "zod";
import { ZConsentRecordSchema } from "./consent";
import { ZCallDisclosuresSchema, ZContentRemovedSchema } from "./disclosures";

export const ZActionSchema = z.object({
  description: z.string(),
  status: z.string().describe("`completed` occurs."),
  actionKey: z.string(),
  completedAt: z.string(),
  metadata: z.record(z.string(), z.unknown()),
});

export const ZFollowUpMeetingDetailsSchema = z
  .object({
    startTime: z.string().describe("ISO 8601."),
    endTime: z.string().describe("ISO 8601."),
    hostEmail: z.string(),
    meetingLink: z.string().describe("Join link for virtual meetings; a physical address for in-person bookings."),
  })
  .describe("Present only when a meeting was booked during the call.");

export const ZCallResultSchema = z.object({
  resultType: z.string().describe("Goal Completed, Goal Not Completed, Voicemail, Busy, No Conversation, Opted Out, Invalid Phone Number, Cancelled, Failed, Scheduled, Rescheduled, Processing Analysis, Calling."),
  summary: z.string(),
  extractedVariables: z.record(z.string(), z.unknown()).describe("Keyed by the agent's extraction variable slugs."),
  agentActions: z.array(ZActionSchema),
  humanActions: z.array(ZActionSchema).describe("Actions requested by the contact."),
  transcription: z.string(),
  outcomes: z.array(z.object({ name: z.string(), reasoning: z.string() })).describe("Names are the agent's configured outcome definitions."),
  followUpMeetingDetails: ZFollowUpMeetingDetailsSchema.optional(),
});

export const ZCrmSchedulingDetailsSchema = z
  .object({
    provider: z.string().optional(),
    mode: z.string().optional(),
    bookingUid: z.string().optional(),
    status: z.enum(["booked", "cancelled"]).optional(),
    workspaceId: z.string().optional(),
    routeId: z.string().optional(),
    cancelledAt: z.string().optional(),
    error: z.string().optional(),
  })
  .describe("`{}` when no meeting was booked.");

const ZPercentilesSchema = z.object({ p50: z.number(), p95: z.number() });

/** Additive (issue 28): what the voice engine measured on the call; docs/call-quality.md defines each figure. */
export const ZCallQualitySchema = z
  .object({
    greetingMs: z.number().nullable().describe("Media stream start (the answer) to the agent's first audio frame sent; null when the agent never spoke."),
    turns: z.number().int().describe("Responses of the agent to the contact's speech that were measured."),
    responseMs: ZPercentilesSchema.extend({ max: z.number() })
      .nullable()
      .describe("Per turn, end of the contact's speech to the agent's first audio frame sent to the carrier: p50, p95 and max over the call's turns; null without turns."),
    modelMs: ZPercentilesSchema.nullable().describe("The part of the response latency spent by the speech-to-speech model."),
    bridgeMs: ZPercentilesSchema.nullable().describe("The part spent in our media bridge (model audio received → frame sent to the carrier)."),
    interruptions: z.number().int().describe("Times the contact spoke over the agent (the agent's audio was cleared)."),
    deadAirSeconds: z.number().describe("Total length of the silences on both sides longer than the dead-air threshold (default 3 s)."),
    answeredBy: z.enum(["human", "machine", "fax", "ivr", "screener", "unknown"]).describe("Who answered: the model's own classification when it gave one, else the carrier's answering-machine detection."),
    amd: z
      .object({ result: z.string().describe("Twilio's AnsweredBy, e.g. human, machine_end_beep, fax, unknown."), decisionMs: z.number().nullable().describe("How long the detection took, from the answer.") })
      .nullable()
      .describe("The carrier's answering-machine detection; null when it gave no result."),
    turnLatencies: z
      .array(z.object({ atMs: z.number(), responseMs: z.number(), modelMs: z.number(), bridgeMs: z.number(), heldMs: z.number().describe("Time the answer was held on purpose: waiting for the answering-machine verdict, or a tool running.") }))
      .describe("Each turn, in order (atMs: from the stream start to the end of the contact's speech)."),
    durationMs: z.number().describe("Length of the measured media stream."),
    timeline: z
      .array(
        z.object({
          atMs: z.number().describe("From the stream start."),
          kind: z.enum(["callee-speech", "agent-speech", "turn", "interruption", "dead-air", "amd", "classified"]),
          durationMs: z.number().optional(),
          label: z.string().optional(),
        }),
      )
      .describe("What happened when, in order: who spoke, each turn's wait, interruptions, dead air, the AMD verdict, the model's classification."),
  })
  .nullable()
  .describe("Call quality; null when the call was not answered or its engine measured nothing.");

/** The call-result webhook payload (the spec's sample fields plus attempt/createdAt/updatedAt/callStatus). */
export const ZCallEventPayloadSchema = z.object({
  agentId: z.string(),
  agentName: z.string(),
  callId: z.string().describe("Format `call.<id>`."),
  name: z.string().describe("Contact name."),
  phoneNumber: z.string().describe("E.164."),
  phoneNumberExt: z.string(),
  fromPhoneNumber: z.string(),
  scheduledAt: z.string().describe("ISO 8601."),
  timezone: z.string().describe("IANA."),
  direction: z.string().describe("`outbound` (a CALL step), or `inbound` (the contact called our number back)."),
  customInputVariables: z.record(z.string(), z.string()),
  duration: z.number().int().describe("Seconds."),
  callUrl: z.string(),
  rescheduledAt: z.string().nullable(),
  callResult: ZCallResultSchema,
  crmSchedulingDetails: ZCrmSchedulingDetailsSchema,
  sequence: z.object({ sequenceId: z.string(), lifecycleStatus: z.string() }),
  promptVersionId: z.string().describe("Format `prompt-ver.<id>`."),
  attempt: z.number().int(),
  createdAt: z.string(),
  updatedAt: z.string(),
  callStatus: z.string().describe("Hyphenated lower case, e.g. `goal-not-completed`."),
  quality: ZCallQualitySchema,
  disclosures: ZCallDisclosuresSchema.nullable().optional(),
  contentRemoved: ZContentRemovedSchema.nullable().optional(),
});

/** The Call metadata object of GET /conversations/metadata/{sequenceId}. */
export const ZCallMetadataSchema = ZCallEventPayloadSchema.extend({
  recordingUrl: z.string().optional().describe("Present only when includeRecording=true and audio is available; signed, expires in 3 hours."),
  consent: ZConsentRecordSchema.nullable()
    .optional()
    .describe("The contact's consent record as given at enrollment (null when none was given). Not part of the webhook body."),
});
export type TCallMetadata = z.infer<typeof ZCallMetadataSchema>;
export type TCallEventPayload = z.infer<typeof ZCallEventPayloadSchema>;
