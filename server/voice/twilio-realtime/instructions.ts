import { DateTime } from "luxon";
import type { PlaceCallRequest } from "@/server/voice/types";

/**
 * The Realtime agent's instructions for one call: the agent's own prompt, then who is being called (name, email,
 * the input variables it was enrolled with), the current date and time in the contact's time zone, when to greet, and
 * how to use the tools.
 */
export function buildCallInstructions(request: PlaceCallRequest, now: Date): string {
  const zone = request.contact.timezone || "UTC";
  const local = DateTime.fromJSDate(now, { zone });
  const variables = Object.entries(request.contact.variables).filter(([, value]) => value.trim() !== "");
  const goals = request.agent.goals.map((goal) => `- ${goal.displayName}${goal.description ? `: ${goal.description}` : ""}`);
  return [
    request.agent.prompt.trim() || `You are ${request.agent.name}, a friendly and concise phone agent.`,
    "",
    "# This call",
    `You are ${request.agent.name}, on an outbound phone call to ${request.contact.name}.`,
    `It is now ${local.toFormat("cccc, d LLLL yyyy, HH:mm")} for the contact (${zone}).`,
    ...(request.contact.email ? [`The contact's email address: ${request.contact.email}.`] : []),
    ...(variables.length ? ["What we know about the contact:", ...variables.map(([key, value]) => `- ${key}: ${value}`)] : []),
    ...(goals.length ? ["During the conversation, find out:", ...goals] : []),
    "",
    "# How to talk",
    request.agent.voice.greetingMode === "wait-for-callee"
      ? "Let the callee speak first, then introduce yourself. Speak briefly and naturally, one question at a time."
      : "Greet the contact and introduce yourself as soon as the call starts, without waiting for them. Speak briefly and naturally, one question at a time; stop when they speak.",
    `If an automated call screener asks who is calling and why, you are ${request.agent.name}${request.agent.voice.callPurpose ? `, calling ${request.agent.voice.callPurpose}` : ""}.`,
    "",
    "# Tools",
    request.agent.hasBookingTool
      ? "- book_meeting: when the contact agrees to a follow-up meeting, book it (pass their preferred time if they said one), then confirm the result."
      : "- book_meeting: no calendar is configured for this agent; offer that a colleague will follow up instead.",
    "- opt_out: when the contact asks not to be called again, call it at once, then apologise briefly and say goodbye.",
    "- end_call: after you have said goodbye, call it to hang up.",
    "- report_answered_by: as soon as you can tell who or what answered (a person, a voicemail greeting, a phone menu, an automated call screener, a fax), call it once and follow its result.",
  ].join("\n");
}
