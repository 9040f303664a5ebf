import { DateTime } from "luxon";
import type { PlaceCallRequest } from "@/server/voice/types";
import { disclosureTexts } from "@/server/services/privacy/disclosures";

/**
 * The Realtime agent's instructions for one call: the agent's own prompt, then who is being called (name, email,
 * the input variables it was enrolled with), the current date and time in the contact's time zone, and how to use
 * the three tools.
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
    "Let the callee speak first, then introduce yourself. Speak briefly and naturally, one question at a time.",
    ...disclosureInstructions(request),
    "",
    "# Tools",
    request.agent.hasBookingTool
      ? "- book_meeting: when the contact agrees to a follow-up meeting, book it (pass their preferred time if they said one), then confirm the result."
      : "- book_meeting: no calendar is configured for this agent; offer that a colleague will follow up instead.",
    "- opt_out: when the contact asks not to be called again, call it at once, then apologise briefly and say goodbye.",
    "- stop_recording: when the contact says they do not want the call recorded, call it at once, confirm that the recording is stopped, and carry on.",
    "- end_call: after you have said goodbye, call it to hang up.",
  ].join("\n");
}

/** What the contact has already heard before the model speaks (played word for word by the engine). */
function disclosureInstructions(request: PlaceCallRequest): string[] {
  const spoken = disclosureTexts(request.privacy.disclosures).map((disclosure) => `"${disclosure.text}"`);
  if (spoken.length === 0) return [];
  return [
    "Before you say anything, the contact has already heard this from us, word for word: " + spoken.join(" ") + " Do not repeat it; never deny being an automated assistant.",
  ];
}
