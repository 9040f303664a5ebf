import type { DbOrTx } from "@/db";
import { saveTranscriptLine, type TranscriptLineInput } from "@/server/voice/twilio-realtime/call-state";
import { objectsToRecording } from "./disclosures";
import type { Redactor } from "./redaction";

/**
 * A spoken turn, redacted before it is stored: the unredacted text goes no further than this function (it is never
 * written, logged or returned). Says which categories were found and whether the contact objected to the recording.
 */
export async function saveRedactedTranscriptLine(
  db: DbOrTx,
  params: { organizationId: string; callId: string; line: TranscriptLineInput; redactor: Redactor },
): Promise<{ categories: string[]; objectsToRecording: boolean }> {
  const { text, categories } = params.redactor.redact(params.line.text);
  await saveTranscriptLine(db, { organizationId: params.organizationId, callId: params.callId, line: { ...params.line, text, redactions: categories } });
  return { categories, objectsToRecording: params.line.speaker === "customer" && objectsToRecording(params.line.text) };
}
