import { INNGEST_APP_ID } from "@/inngest/app-id";
import { humanize } from "../../../_components/ui/format";

/** What each background function does, in words a support person uses (the raw id stays in the run's details). */
const FUNCTION_NAMES: Record<string, string> = {
  "dispatch-calls": "Dialing the first calls of new sequences",
  "dispatch-due-calls": "Dialing calls that came due",
  "analyze-call": "Analysing a finished call",
  "call-watchdog": "Checking for stuck or overdue calls",
  "enqueue-webhook-deliveries": "Preparing webhook deliveries",
  "deliver-webhook": "Delivering a call result to a webhook",
  "materialize-bulk-batch": "Creating the sequences of an import",
  "resume-bulk-batches": "Resuming stalled imports",
  "reconcile-meeting": "Updating a cancelled meeting's status",
  "recording-retention": "Deleting recordings past retention",
  "send-sequence-message": "Sending a sequence's email or text",
  "schedule-sequence-messages": "Scheduling a sequence's emails and texts",
  "sweep-sequence-messages": "Checking for due emails and texts",
  "run-agent-tests": "Running an agent's test cases",
  "call-event-retention": "Deleting old call events",
};

/** Why a run started. */
const EVENT_NAMES: Record<string, string> = {
  "sequence/started": "A sequence started",
  "sequence/bulk.accepted": "An import was accepted",
  "sequence/cancelled": "A sequence was cancelled",
  "call/ended": "A call ended",
  "call/analyzed": "A call was analysed",
  "meeting/cancelled": "A meeting was cancelled",
  "webhook/delivery.requested": "A delivery was requested",
  "sequence/message.due": "An email or text came due",
  "agent-tests/run.requested": "A test run was started",
  "inngest/scheduled.timer": "On a schedule",
};

const STEP_OPS: Record<string, string> = { StepRun: "Work", Sleep: "Wait", WaitForEvent: "Wait for an event", InvokeFunction: "Run another job" };

/** A run's function in words. Runs carry the app-prefixed id (`outbound-calling-run-agent-tests`); the table is by the function's own id. */
export function jobName(functionId: string, fallback: string): string {
  const local = functionId.startsWith(`${INNGEST_APP_ID}-`) ? functionId.slice(INNGEST_APP_ID.length + 1) : functionId;
  return FUNCTION_NAMES[local] ?? fallback;
}

export function triggerName(eventName: string): string {
  if (!eventName) return "—";
  return EVENT_NAMES[eventName] ?? humanize(eventName.replace(/[/.]/g, " "));
}

export function stepOpName(op: string): string {
  return STEP_OPS[op] ?? op;
}

/** Step ids are kebab-case ("dial-step-2"): "Dial step 2". */
export function stepName(stepId: string): string {
  return humanize(stepId);
}
