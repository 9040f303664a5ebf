import { z } from "zod";
import { answeredByClasses, greetingModes, qualityEventKinds } from "@/db/schema/call-quality";
import { callDispositions } from "./types";

const ZBase = z.object({
  providerCallId: z.string().min(1).max(200),
  callId: z.string().min(1).max(200),
  occurredAt: z.iso.datetime({ offset: true }),
});

const ZTranscriptLine = z.object({
  itemId: z.string().min(1).max(200),
  speaker: z.enum(["agent", "customer"]),
  text: z.string().max(20_000),
  offsetMs: z.number().int().min(0).max(24 * 3600 * 1000),
  endOffsetMs: z.number().int().min(0).max(24 * 3600 * 1000).nullable().optional(),
});

const ms = z.number().min(0).max(24 * 3600 * 1000);

/** A call's quality as an engine reports it with `call.ended` (CallQuality, docs/call-quality.md). */
export const ZCallQualityEventSchema = z.object({
  source: z.enum(["twilio-realtime", "simulator"]),
  greetingMode: z.enum(greetingModes),
  greetingMs: ms.nullable(),
  turns: z
    .array(z.object({ atMs: ms, responseMs: ms, modelMs: z.number(), bridgeMs: ms, heldMs: ms, speechEnd: z.enum(["model", "energy"]) }))
    .max(2000),
  interruptions: z.number().int().min(0),
  deadAirSeconds: z.number().min(0),
  modelClass: z.enum(answeredByClasses).nullable(),
  answeredBy: z.enum(answeredByClasses),
  amd: z.object({ result: z.string().max(100), decisionMs: ms.nullable() }).nullable(),
  durationMs: ms,
  events: z.array(z.object({ atMs: ms, kind: z.enum(qualityEventKinds), durationMs: ms.optional(), label: z.string().max(200).optional() })).max(1000),
});

/** The provider events the entry point accepts (`POST /api/voice/events`). */
export const ZVoiceProviderEventSchema = z.discriminatedUnion("type", [
  ZBase.extend({ type: z.literal("call.ringing") }),
  ZBase.extend({ type: z.literal("call.answered") }),
  ZBase.extend({ type: z.literal("call.tool"), tool: z.enum(["book_meeting", "transfer_call"]), arguments: z.record(z.string(), z.unknown()) }),
  ZBase.extend({ type: z.literal("call.transcript"), ...ZTranscriptLine.shape }),
  ZBase.extend({ type: z.literal("call.transcript.batch"), lines: z.array(ZTranscriptLine).min(1).max(200) }),
  ZBase.extend({
    type: z.literal("call.disclosure"),
    kind: z.enum(["identification", "recordingNotice"]),
    offsetMs: z.number().int().min(0).max(24 * 3600 * 1000),
    via: z.enum(["call", "voicemail"]),
  }),
  ZBase.extend({
    type: z.literal("call.recording"),
    state: z.literal("declined"),
    offsetMs: z.number().int().min(0).max(24 * 3600 * 1000),
    reason: z.string().max(200),
  }),
  ZBase.extend({
    type: z.literal("call.ended"),
    disposition: z.enum(callDispositions),
    durationSeconds: z.number().int().min(0).max(24 * 3600),
    transcript: z.string().max(500_000).nullable(),
    recording: z
      .object({
        contentType: z.string().min(1).max(100),
        contentBase64: z.string().max(20_000_000).optional(),
        url: z.url().optional(),
        durationSeconds: z.number().min(0),
      })
      .nullable(),
    errorMessage: z.string().max(2000).optional(),
    quality: ZCallQualityEventSchema.nullable().optional(),
    redactedSpans: z
      .array(z.object({ startMs: z.number().min(0), endMs: z.number().min(0), speaker: z.enum(["agent", "customer"]), categories: z.array(z.string().max(60)).max(20) }))
      .max(1000)
      .optional(),
  }),
]);
