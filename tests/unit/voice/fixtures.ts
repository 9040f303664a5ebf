import type { ExtractionDefinition, OutcomeDefinition } from "@/server/analysis/types";
import type { PlaceCallRequest } from "@/server/voice/types";

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
      voice: { voicemailMessage: null, ringTimeoutSeconds: 30, maxCallSeconds: 600, voice: "marin", greetingMode: "on-answer", callPurpose: null, answeredByActions: {} },
    },
    contact: { name: "Jane Doe", timezone: "America/New_York", email: "jane@example.com", variables: { company_name: "Acme Corp", crm_ref: "CRM-42" } },
    ...overrides,
  };
}
