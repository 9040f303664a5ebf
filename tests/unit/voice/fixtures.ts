import type { ExtractionDefinition, OutcomeDefinition } from "@/server/analysis/types";
import { effectiveAnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import type { PlaceCallRequest } from "@/server/voice/types";
import { buildCallPrivacy, type CallPrivacy } from "@/server/services/privacy/call-privacy";
import { REDACTION_CATEGORIES } from "@/server/services/privacy/redaction";

/** The privacy part of a place-call request as the dialer builds it (default disclosures, every redaction category). */
export function testCallPrivacy(to: string, options: { keepRecordings?: boolean } = {}): CallPrivacy {
  return buildCallPrivacy(
    { name: "Acme Corp", keepRecordings: options.keepRecordings ?? true, retentionDays: null, redaction: { categories: REDACTION_CATEGORIES, patterns: [] } },
    {
      call: { disclosures: null, fromPhoneNumber: "+12025550101" },
      sequence: { phoneNumber: to, toEmailAddress: "jane@example.com", consent: null },
      agent: { name: "Ava", disclosureIdentification: null, disclosureRecordingNotice: null, recordingNoticeMode: "by-state" },
    },
    new Date("2026-11-20T15:00:00Z"),
  );
}

export const extractionDefinitions: ExtractionDefinition[] = [
  { slug: "interest_level", displayName: "Interest level", description: "How interested the contact sounded.", type: "DROPDOWN", dropdownOptions: ["high", "medium", "low"], datetimeFormat: null, formatDatetimeInUtc: null },
  { slug: "callback_time", displayName: "Callback time", description: "When to call back.", type: "DATE/TIME", dropdownOptions: null, datetimeFormat: "yyyy-MM-dd HH:mm:ss", formatDatetimeInUtc: false },
  { slug: "budget", displayName: "Budget", description: "Budget in dollars.", type: "NUMBER", dropdownOptions: null, datetimeFormat: null, formatDatetimeInUtc: null },
  { slug: "decision_maker", displayName: "Decision maker", description: "Whether the contact decides.", type: "BOOLEAN", dropdownOptions: null, datetimeFormat: null, formatDatetimeInUtc: null },
  { slug: "call_sentiment", displayName: "Call sentiment", description: "System default.", type: "STRING", dropdownOptions: null, datetimeFormat: null, formatDatetimeInUtc: null },
];

export const outcomeDefinitions: OutcomeDefinition[] = [
  { name: "Meeting booked", description: "A follow-up meeting was booked." },
  { name: "Interested", description: "Interested, no meeting yet." },
  { name: "Not interested", description: "Declined." },
];

export function placeCallRequest(to: string, overrides: Partial<PlaceCallRequest> = {}): PlaceCallRequest {
  return {
    callId: `call.test-${to}`,
    organizationId: "org.test",
    from: "+12025550101",
    to,
    toExt: "",
    agent: {
      agentId: "agent.test",
      name: "Ava",
      prompt: "You are Ava.",
      hasBookingTool: false,
      goals: extractionDefinitions.filter((definition) => definition.slug !== "call_sentiment"),
      voice: { voicemailMessage: null, ringTimeoutSeconds: 30, maxCallSeconds: 600, voice: "marin", greetingMode: "on-answer", callPurpose: null, answeredByActions: {}, answerMoves: effectiveAnswerMoves(null) },
    },
    contact: { name: "Jane Doe", timezone: "America/New_York", email: "jane@example.com", variables: { company_name: "Acme Corp", crm_ref: "CRM-42" } },
    privacy: testCallPrivacy(to),
    ...overrides,
  };
}
