import type { InngestFunction } from "inngest";
import { analyzeCall } from "./analyze-call";
import { callEventRetention } from "./call-event-retention";
import { callWatchdog } from "./call-watchdog";
import { deliverWebhook } from "./deliver-webhook";
import { dispatchCalls, dispatchDueCallsSweep } from "./dispatch-calls";
import { enqueueWebhookDeliveries } from "./enqueue-webhook-deliveries";
import { materializeBulkBatch, resumeBulkBatches } from "./materialize-bulk-batch";
import { numberHealthSweep } from "./number-health-sweep";
import { reconcileMeeting } from "./reconcile-meeting";
import { recordingRetention } from "./recording-retention";
import { scheduleSequenceMessages, sweepSequenceMessages } from "./schedule-sequence-messages";
import { sendSequenceMessageFunction } from "./send-sequence-message";
import { runAgentTests } from "./run-agent-tests";

/**
 * Every Inngest function of the app, registered by the serve route (app/api/inngest/route.ts) and run by the
 * embedded runner. One function per file in this folder; append it here.
 */
export const functions: InngestFunction.Any[] = [enqueueWebhookDeliveries, deliverWebhook, dispatchCalls, dispatchDueCallsSweep, analyzeCall, callWatchdog, reconcileMeeting, materializeBulkBatch, resumeBulkBatches, recordingRetention, callEventRetention, scheduleSequenceMessages, sendSequenceMessageFunction, sweepSequenceMessages, runAgentTests, numberHealthSweep];
