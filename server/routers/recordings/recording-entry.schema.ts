import { z } from "zod";

export const ZRecordingStatusSchema = z
  .enum(["downloaded", "no-recording", "call-not-found"])
  .describe(
    "`downloaded`: audio located, `url` present. `no-recording`: no retrievable audio (never recorded, removed by the retention policy, or hosted by a provider the service cannot sign for) — the call may still have a transcript. `call-not-found`: no call exists for the id.",
  );

/** The spec's Recording entry (inside a sequence). */
export const ZRecordingEntrySchema = z.object({
  callId: z.string().describe("Call ID, format `call.<id>`."),
  recordingStatus: ZRecordingStatusSchema,
  url: z
    .string()
    .url()
    .optional()
    .describe("Signed, short-lived link to the audio; present only when recordingStatus is `downloaded`. A secret: anyone holding it can fetch the audio until expiresAt."),
  expiresAt: z.string().datetime().optional().describe("When `url` stops working: 3 hours after the response was generated."),
  durationSeconds: z
    .number()
    .int()
    .optional()
    .describe("Length of the recording in seconds when audio is available, otherwise the call's duration (0 for a call not made yet)."),
  scheduledAt: z.string().datetime().optional().describe("Scheduled time of the call step, ISO 8601 UTC."),
  stepNumber: z.number().int().optional().describe("1-based position of the call within its sequence."),
  transcript: z
    .string()
    .optional()
    .describe("Formatted speaker turns, one `Speaker: text` line each; present only when transcripts were requested and the call has one (empty when the retention policy removed it: see removedReason)."),
  removedReason: z
    .literal("retention")
    .optional()
    .describe("Present when the audio (and, with an empty transcript, the transcript) was deleted under the organization's retention policy (docs/compliance.md)."),
});
