import { createHash } from "node:crypto";
import { DateTime } from "luxon";
import type { DbOrTx } from "@/db";
import { findExtractedVariableDefinitions, findInputVariableDefinitions, findOutcomeDefinitions, getAgentOrThrow } from "@/db/queries/agents";
import type { ExtractedVariableType } from "@/db/schema";
import { callUrlOf } from "@/server/services/calls/call-metadata";
import type { TCallEventPayload } from "@/server/schemas/call";

/** The spec's sample payload: the call-result payload without attempt, createdAt, updatedAt and callStatus. */
export type TCallEventSample = Omit<TCallEventPayload, "attempt" | "createdAt" | "updatedAt" | "callStatus">;

const CROCKFORD = "0123456789abcdefghjkmnpqrstvwxyz";

/** A ULID-shaped, lowercase identifier derived from a seed: the same agent always gets the same sample IDs. */
function sampleUlid(seed: string): string {
  const digest = createHash("sha256").update(seed).digest();
  let out = CROCKFORD[digest[0]! % 8]!;
  for (let i = 1; i < 26; i += 1) out += CROCKFORD[digest[i]! % 32]!;
  return out;
}

function exampleExtractedValue(
  definition: { type: ExtractedVariableType; dropdownOptions: string[] | null; datetimeFormat: string | null; formatDatetimeInUtc: boolean | null; displayName: string },
  meetingAt: DateTime,
): unknown {
  switch (definition.type) {
    case "NUMBER":
      return 42;
    case "BOOLEAN":
      return true;
    case "DROPDOWN":
      return definition.dropdownOptions?.[0] ?? "";
    case "DATE/TIME": {
      const at = definition.formatDatetimeInUtc ? meetingAt.toUTC() : meetingAt;
      return at.toFormat(definition.datetimeFormat ?? "yyyy-MM-dd HH:mm:ss");
    }
    default:
      return `Example ${definition.displayName.toLowerCase()}`;
  }
}

function exampleInputValue(slug: string, displayName: string): string {
  if (/company|account|org/i.test(slug)) return "Acme Corporation";
  if (/email/i.test(slug)) return "jordan.lee@example.com";
  if (/(ref|id)$/i.test(slug)) return "CRM-000123";
  return `Example ${displayName.toLowerCase()}`;
}

export type BuildCallEventSampleParams = { organizationId: string; agentId: string; now?: Date };

/**
 * A call-result payload shaped by the agent's configuration (GET /agent/{agentId}/call_event_sample and test events):
 * its input variables as customInputVariables, its extraction variables with typed example values, its first enabled
 * outcome, and — when it has a calendar tool — a booked meeting (followUpMeetingDetails, crmSchedulingDetails).
 * IDs are stable per agent; times are relative to `now`. The spec's sample omits attempt, createdAt, updatedAt,
 * callStatus and recordingUrl, and so does this one.
 */
export async function buildCallEventSample(db: DbOrTx, params: BuildCallEventSampleParams): Promise<TCallEventSample> {
  const agent = await getAgentOrThrow(db, params);
  const now = DateTime.fromJSDate(params.now ?? new Date()).startOf("minute");
  const [inputVariables, extractedVariables, outcomes] = await Promise.all([
    findInputVariableDefinitions(db, { agentId: agent.id }),
    findExtractedVariableDefinitions(db, { agentId: agent.id, customerDefinedOnly: true }),
    findOutcomeDefinitions(db, { agentId: agent.id, enabledCustomerDefinedOnly: true }),
  ]);

  const timezone = agent.timezones[0] ?? "America/New_York";
  const callId = `call.${sampleUlid(`${agent.id}:call`)}`;
  const scheduledAt = now.minus({ minutes: 5 });
  const endedAt = now.minus({ minutes: 3 });
  const meetingStart = now.setZone(timezone).plus({ days: 1 }).set({ hour: 15, minute: 0, second: 0, millisecond: 0 });
  const hasCalendarTool = agent.bookingConfig !== null;
  const contactName = "Jordan Lee";
  const outcome = outcomes[0];

  const transcription = [
    `Agent: Hi ${contactName}, this is ${agent.name}. Do you have a minute?`,
    "Contact: Sure, go ahead.",
    hasCalendarTool
      ? `Agent: Great. Could we set up a short follow-up call? I have tomorrow at ${meetingStart.toFormat("h:mm a")}.`
      : "Agent: Great. I'd like to tell you briefly how we can help your team.",
    hasCalendarTool ? "Contact: Tomorrow works, book it." : "Contact: Sounds interesting, send me the details.",
    "Agent: Perfect, thank you. Have a good day!",
  ].join("\n");

  return {
    agentId: agent.id,
    agentName: agent.name,
    callId,
    name: contactName,
    phoneNumber: "+12025550123",
    phoneNumberExt: "",
    fromPhoneNumber: agent.phoneNumbers[0] ?? "+12025550100",
    scheduledAt: scheduledAt.toUTC().toISO()!,
    timezone,
    direction: "outbound",
    customInputVariables: Object.fromEntries(inputVariables.map((variable) => [variable.slug, exampleInputValue(variable.slug, variable.displayName)])),
    duration: 95,
    callUrl: callUrlOf(callId),
    rescheduledAt: null,
    callResult: {
      resultType: "Goal Completed",
      summary: hasCalendarTool
        ? `${contactName} was interested and booked a follow-up meeting for tomorrow.`
        : `${contactName} was interested and asked for more details by email.`,
      extractedVariables: Object.fromEntries(extractedVariables.map((definition) => [definition.slug, exampleExtractedValue(definition, meetingStart)])),
      agentActions: hasCalendarTool
        ? [
            {
              description: "Booked a follow-up meeting",
              status: "completed",
              actionKey: "book_meeting",
              completedAt: endedAt.toUTC().toISO()!,
              metadata: { provider: agent.bookingConfig!.provider, mode: agent.bookingConfig!.mode },
            },
          ]
        : [],
      humanActions: [],
      transcription,
      outcomes: outcome ? [{ name: outcome.name, reasoning: `The contact's answers match "${outcome.name}".` }] : [],
      ...(hasCalendarTool
        ? {
            followUpMeetingDetails: {
              startTime: meetingStart.toUTC().toISO()!,
              endTime: meetingStart.plus({ minutes: 30 }).toUTC().toISO()!,
              hostEmail: "host@example.com",
              meetingLink: `https://meet.example.com/${sampleUlid(`${agent.id}:meeting`).slice(0, 10)}`,
            },
          }
        : {}),
    },
    crmSchedulingDetails: hasCalendarTool
      ? { provider: agent.bookingConfig!.provider, mode: agent.bookingConfig!.mode, bookingUid: `booking-${sampleUlid(`${agent.id}:booking`).slice(0, 12)}`, status: "booked" }
      : {},
    sequence: { sequenceId: `call-sequence.${sampleUlid(`${agent.id}:sequence`)}`, lifecycleStatus: "done" },
    promptVersionId: agent.currentPromptVersionId ?? `prompt-ver.${sampleUlid(`${agent.id}:prompt`)}`,
    quality: {
      greetingMs: 640,
      turns: 3,
      responseMs: { p50: 780, p95: 1320, max: 1320 },
      modelMs: { p50: 690, p95: 760 },
      bridgeMs: { p50: 2, p95: 4 },
      interruptions: 0,
      deadAirSeconds: 0,
      answeredBy: "human",
      amd: { result: "human", decisionMs: 2400 },
      turnLatencies: [
        { atMs: 2100, responseMs: 1320, modelMs: 700, bridgeMs: 3, heldMs: 617 },
        { atMs: 9800, responseMs: 780, modelMs: 776, bridgeMs: 4, heldMs: 0 },
        { atMs: 15400, responseMs: 700, modelMs: 698, bridgeMs: 2, heldMs: 0 },
      ],
      durationMs: 95_000,
      timeline: [
        { atMs: 640, kind: "agent-speech", durationMs: 5200 },
        { atMs: 1200, kind: "callee-speech", durationMs: 900 },
        { atMs: 2100, kind: "turn", durationMs: 1320, label: "1320 ms" },
        { atMs: 3200, kind: "amd", label: "human" },
      ],
    },
  };
}
