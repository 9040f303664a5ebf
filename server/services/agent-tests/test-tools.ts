import { DateTime } from "luxon";
import type { Db } from "@/db";
import type { CallAction, FollowUpMeetingDetails, TestContact } from "@/db/schema";
import { parseSpokenDateTime } from "@/server/analysis/values";
import { offerSlotForTest } from "@/server/services/calendar/book-meeting";
import type { ToolCallResult } from "@/server/voice/types";
import type { AgentTestContext } from "./test-context";

/** The test's meeting length when nothing is booked (the provider decides it at booking). */
const TEST_MEETING_MINUTES = 30;

/** What the tools of one test conversation did: what the webhook would then carry. */
export type TestToolState = {
  meeting: FollowUpMeetingDetails | null;
  crmSchedulingDetails: Record<string, unknown>;
  optedOut: boolean;
  agentActions: CallAction[];
};

export function newTestToolState(): TestToolState {
  return { meeting: null, crmSchedulingDetails: {}, optedOut: false, agentActions: [] };
}

export type TestToolParams = { db: Db; context: AgentTestContext; contact: TestContact; inputVariables: Record<string, string>; state: TestToolState; now: () => Date };

/**
 * `book_meeting` in test mode: the provider routes the caller and offers the slot they would get (real availability,
 * the agent's mode), and nothing is booked. The test records the offered slot as the meeting the webhook would carry
 * (`crmSchedulingDetails.status` is `test-not-booked`, host and link empty: the provider assigns them at booking).
 */
export async function bookMeetingInTest(params: TestToolParams, args: { preferredStartTime: string | null }): Promise<ToolCallResult> {
  const config = params.context.agent.bookingConfig;
  if (!config) return { ok: false, message: "No calendar is configured for this agent; a colleague will follow up instead." };
  const now = params.now();
  const spoken = args.preferredStartTime ? parseSpokenDateTime(args.preferredStartTime, now, params.contact.timezone) : null;
  const offer = await offerSlotForTest(params.db, {
    organizationId: params.context.agent.organizationId,
    bookingConfig: config,
    guest: { email: params.contact.email, name: params.contact.name, timeZone: params.contact.timezone },
    variables: params.inputVariables,
    preferredStartTime: spoken?.toISO() ?? undefined,
    now,
  });
  if (offer.status === "failed") {
    params.state.agentActions.push({ description: `Could not book a meeting: ${offer.message}`, status: "failed", actionKey: "book_meeting", completedAt: now.toISOString(), metadata: { mode: offer.mode, errorCode: offer.errorCode, test: true } });
    return { ok: false, message: `The booking could not be made: ${offer.message}`, data: { errorCode: offer.errorCode } };
  }
  const start = DateTime.fromISO(offer.startTime);
  params.state.meeting = { startTime: offer.startTime, endTime: start.plus({ minutes: TEST_MEETING_MINUTES }).toUTC().toISO()!, hostEmail: "", meetingLink: "" };
  params.state.crmSchedulingDetails = { provider: config.provider, mode: offer.mode, status: "test-not-booked", routeId: offer.routeId };
  const local = start.setZone(params.contact.timezone);
  return {
    ok: true,
    message: `Booked for ${local.toFormat("cccc d LLLL 'at' h:mm a")} (${params.contact.timezone}). Test mode: the provider offered this slot; nothing was booked.`,
    data: { startTime: offer.startTime, mode: offer.mode, test: true },
  };
}

/** `opt_out` in test mode: recorded on the test only — the number is not added to the organization's suppressions. */
export function optOutInTest(params: Pick<TestToolParams, "state" | "now">): ToolCallResult {
  params.state.optedOut = true;
  params.state.agentActions.push({ description: "Recorded the contact's request not to be called again (test: no suppression)", status: "completed", actionKey: "opt_out", completedAt: params.now().toISOString(), metadata: { test: true } });
  return { ok: true, message: "The number is removed from the calling list; nobody from this organization will call it again." };
}
