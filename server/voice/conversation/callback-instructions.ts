import { DateTime } from "luxon";
import type { PlaceCallRequest } from "@/server/voice/types";

/** The greeting a callback opens with: the contact by name, the agent, and why they are talking. */
export function callbackGreeting(request: Pick<PlaceCallRequest, "agent" | "contact">): string {
  const firstName = request.contact.name.trim().split(/\s+/)[0] || request.contact.name.trim();
  return `Hi ${firstName}, this is ${request.agent.name}, thanks for calling back.`;
}

/**
 * The Realtime agent's instructions when a contact calls our number back (docs/sequences.md "Callbacks"): the agent's
 * own prompt; that the caller is returning our call; the sequence's context — the input variables they were enrolled
 * with and the summary of the last call — and the current time in their zone; then an explicit opening line that
 * greets them by name (they called: the agent speaks first), and the same three tools as on an outbound call.
 */
export function buildCallbackInstructions(request: PlaceCallRequest, now: Date): string {
  const zone = request.contact.timezone || "UTC";
  const local = DateTime.fromJSDate(now, { zone });
  const variables = Object.entries(request.contact.variables).filter(([, value]) => value.trim() !== "");
  const goals = request.agent.goals.map((goal) => `- ${goal.displayName}${goal.description ? `: ${goal.description}` : ""}`);
  const lastCalled = request.callback?.lastCalledAt ? DateTime.fromISO(request.callback.lastCalledAt, { zone }) : null;
  return [
    request.agent.prompt.trim() || `You are ${request.agent.name}, a friendly and concise phone agent.`,
    "",
    "# This call",
    `You are ${request.agent.name}. ${request.contact.name} is calling you back: you called them${lastCalled ? ` on ${lastCalled.toFormat("cccc, d LLLL 'at' HH:mm")}` : ""} from this number.`,
    `It is now ${local.toFormat("cccc, d LLLL yyyy, HH:mm")} for the caller (${zone}).`,
    ...(request.contact.email ? [`The caller's email address: ${request.contact.email}.`] : []),
    ...(variables.length ? ["What we know about the caller:", ...variables.map(([key, value]) => `- ${key}: ${value}`)] : []),
    ...(request.callback?.lastSummary ? [`Summary of your last call with them: ${request.callback.lastSummary}`] : ["Your last call did not reach them (or was not summarised)."]),
    ...(goals.length ? ["During the conversation, find out:", ...goals] : []),
    "",
    "# How to talk",
    "They called you: greet them at once, by name, then pick up where the last call left off. Speak briefly and naturally, one question at a time.",
    `Open with: "${callbackGreeting(request)}"`,
    "",
    "# Tools",
    request.agent.hasBookingTool
      ? "- book_meeting: when the caller agrees to a follow-up meeting, book it (pass their preferred time if they said one), then confirm the result."
      : "- book_meeting: no calendar is configured for this agent; offer that a colleague will follow up instead.",
    "- opt_out: when the caller asks not to be called again, call it at once, then apologise briefly and say goodbye.",
    "- end_call: after you have said goodbye, call it to hang up.",
  ].join("\n");
}
