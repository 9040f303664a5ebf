import { getDb } from "@/db";
import { reconcileMeetingStatus } from "@/server/services/meetings/reconcile-meeting";
import { inngest } from "../client";
import { meetingCancelled } from "../events";

/**
 * After a meeting is cancelled (POST /conversations/meetings/{entityId}/cancel, once the provider confirmed), brings
 * the conversation's stored metadata in line with the provider: crmSchedulingDetails.status → "cancelled" with
 * cancelledAt. Asynchronous on purpose (spec: not within the request). The provider is read again, so a replayed or
 * late event cannot mark a meeting cancelled that the provider still has active. Provider failures throw → retried.
 */
export const reconcileMeeting = inngest.createFunction(
  { id: "reconcile-meeting", retries: 5, triggers: [meetingCancelled] },
  async ({ event, step }) => {
    return step.run("reconcile-meeting-status", () => reconcileMeetingStatus(getDb(), { callId: event.data.callId }));
  },
);
