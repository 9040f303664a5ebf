import { DateTime } from "luxon";
import type { CallDisposition, PlaceCallRequest, ToolCallResult, VoiceExtractionGoal } from "@/server/voice/types";
import { transferTargetScenarioFor } from "@/server/simulators/voice-script";
import { isWithinTransferHours, type TransferFallback } from "@/server/voice/transfer-settings";
import { seededRandom, seedOf } from "./wav";
import { disclosureTexts } from "@/server/services/privacy/disclosures";

/** What the agent offers instead of a person, as it says it. */
const FALLBACK_SAID: Record<TransferFallback, string> = {
  book_meeting: "book a short meeting with a colleague",
  take_message: "take a message for them",
  callback: "have a colleague call you back",
};

/**
 * The outcome-by-last-digit table of DESIGN §7. `expected` is what the analyser should conclude from the
 * conversation; the simulator itself only produces telephony facts (disposition, duration, transcript, audio).
 */
export type SimulatedScenario =
  | "goal-with-meeting"
  | "goal-no-meeting"
  | "not-completed"
  | "voicemail"
  | "busy"
  | "no-conversation"
  | "opt-out"
  | "invalid-number"
  | "provider-error"
  | "not-completed-no-audio";

export type SimulatedOutcome = {
  digit: number;
  scenario: SimulatedScenario;
  disposition: CallDisposition;
  expectedResultType: string;
  /** Seconds of the (simulated) call: [min, max]. */
  durationRange: [number, number];
  hasTranscript: boolean;
  hasRecording: boolean;
};

export const SIMULATED_OUTCOMES: readonly SimulatedOutcome[] = [
  { digit: 0, scenario: "goal-with-meeting", disposition: "answered", expectedResultType: "Goal Completed", durationRange: [180, 420], hasTranscript: true, hasRecording: true },
  { digit: 1, scenario: "not-completed", disposition: "answered", expectedResultType: "Goal Not Completed", durationRange: [90, 240], hasTranscript: true, hasRecording: true },
  { digit: 2, scenario: "voicemail", disposition: "voicemail", expectedResultType: "Voicemail", durationRange: [25, 45], hasTranscript: true, hasRecording: true },
  { digit: 3, scenario: "busy", disposition: "busy", expectedResultType: "Busy", durationRange: [0, 0], hasTranscript: false, hasRecording: false },
  { digit: 4, scenario: "no-conversation", disposition: "answered", expectedResultType: "No Conversation", durationRange: [8, 20], hasTranscript: true, hasRecording: true },
  { digit: 5, scenario: "opt-out", disposition: "answered", expectedResultType: "Opted Out", durationRange: [30, 60], hasTranscript: true, hasRecording: true },
  { digit: 6, scenario: "invalid-number", disposition: "invalid-number", expectedResultType: "Invalid Phone Number", durationRange: [0, 0], hasTranscript: false, hasRecording: false },
  { digit: 7, scenario: "provider-error", disposition: "failed", expectedResultType: "Failed", durationRange: [0, 0], hasTranscript: false, hasRecording: false },
  { digit: 8, scenario: "goal-no-meeting", disposition: "answered", expectedResultType: "Goal Completed", durationRange: [150, 360], hasTranscript: true, hasRecording: true },
  { digit: 9, scenario: "not-completed-no-audio", disposition: "answered", expectedResultType: "Goal Not Completed", durationRange: [60, 180], hasTranscript: true, hasRecording: false },
];

export function simulatedOutcomeFor(phoneNumber: string): SimulatedOutcome {
  const last = phoneNumber.replace(/\D/g, "").slice(-1);
  return SIMULATED_OUTCOMES[Number(last || "0")]!;
}

export type SimulatedCallPlan = {
  outcome: SimulatedOutcome;
  durationSeconds: number;
  /** The agent books a meeting through its calendar tool during the call (digit 0 with a booking tool). */
  booksMeeting: boolean;
  connected: boolean;
  /**
   * Digit 1 with an agent that transfers: the contact asks for a person and the agent hands the call to its first
   * target — answered unless the target's number ends in 3 (busy), 4 (no answer) or 7 (declines), as in the Twilio
   * simulator; outside the agent's hours nobody is tried. Null: no transfer in this call.
   */
  transfer: { targetLabel: string; mode: "cold" | "warm"; outcome: "completed" | "busy" | "no-answer" | "outside-hours"; fallback: string; humanLegSeconds: number } | null;
};

export function planSimulatedCall(request: PlaceCallRequest, now: Date = new Date()): SimulatedCallPlan {
  const outcome = simulatedOutcomeFor(request.to);
  const random = seededRandom(seedOf(request.callId));
  const [min, max] = outcome.durationRange;
  const durationSeconds = min + Math.floor(random() * (max - min + 1));
  return {
    outcome,
    durationSeconds,
    booksMeeting: outcome.scenario === "goal-with-meeting" && request.agent.hasBookingTool,
    connected: outcome.disposition === "answered" || outcome.disposition === "voicemail",
    transfer: planTransfer(request, outcome, durationSeconds, now),
  };
}

function planTransfer(request: PlaceCallRequest, outcome: SimulatedOutcome, durationSeconds: number, now: Date): SimulatedCallPlan["transfer"] {
  const config = request.agent.transfer;
  const target = config?.targets[0];
  if (!config || !target || outcome.scenario !== "not-completed") return null;
  const base = { targetLabel: target.label, mode: config.mode, fallback: FALLBACK_SAID[config.fallback] };
  if (!isWithinTransferHours(config, config.timezone ?? request.agent.timezone ?? "UTC", now)) return { ...base, outcome: "outside-hours", humanLegSeconds: 0 };
  const reached = transferTargetScenarioFor(target.destination);
  if (reached.kind === "busy" || reached.kind === "declined") return { ...base, outcome: "busy", humanLegSeconds: 0 };
  if (reached.kind === "no-answer") return { ...base, outcome: "no-answer", humanLegSeconds: 0 };
  return { ...base, outcome: "completed", humanLegSeconds: Math.round(durationSeconds * 0.5) };
}

const AGENT = "Agent";
const CUSTOMER = "Customer";

function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] || name;
}

function humanize(slug: string): string {
  return slug.replace(/[_-]+/g, " ").trim();
}

/** The contact's variables as the agent would bring them up ("with Acme Corp", "your account Gold"). */
function contextLine(variables: Record<string, string>): string | null {
  const entries = Object.entries(variables).filter(([, value]) => value.trim() !== "");
  if (entries.length === 0) return null;
  const company = entries.find(([key]) => /company|organi[sz]ation|business|employer/i.test(key));
  const parts: string[] = [];
  if (company) parts.push(`I see you're with ${company[1]}`);
  for (const [key, value] of entries.filter((entry) => entry !== company).slice(0, 2)) {
    parts.push(`I have your ${humanize(key)} as ${value}`);
  }
  return `${parts.join(", and ")}. Is that still right?`;
}

/** A plausible answer for an extraction goal, consistent with its type. */
function answerFor(goal: VoiceExtractionGoal, request: PlaceCallRequest, startedAt: Date, positive: boolean, index: number): string {
  const random = seededRandom(seedOf(`${request.callId}:${goal.slug}`));
  switch (goal.type) {
    case "DROPDOWN": {
      const options = goal.dropdownOptions ?? [];
      if (options.length === 0) return "I'm not sure.";
      const option = positive ? options[0]! : options[Math.min(options.length - 1, Math.max(1, Math.floor(options.length / 2)))]!;
      return `I'd say ${option}.`;
    }
    case "DATE/TIME": {
      const local = DateTime.fromJSDate(startedAt, { zone: request.contact.timezone || "UTC" })
        .plus({ days: 2 + index })
        .set({ hour: 14 + Math.floor(random() * 3), minute: random() < 0.5 ? 0 : 30, second: 0, millisecond: 0 });
      return `${local.toFormat("cccc, LLLL d")} at ${local.toFormat("h:mm a")} works for me.`;
    }
    case "NUMBER": {
      const amount = (5 + Math.floor(random() * 20)) * 1000;
      return `Roughly ${amount.toLocaleString("en-US")}.`;
    }
    case "BOOLEAN":
      return positive ? "Yes, it is." : "No, not at the moment.";
    default: {
      if (/email/i.test(goal.slug)) return request.contact.email ? `It's ${request.contact.email}.` : "I'd rather not say.";
      if (/sentiment|mood|tone/i.test(goal.slug)) return positive ? "Honestly, I'm pretty happy with how this went." : "It's fine, I guess.";
      return positive ? "We're looking to modernise our outreach this quarter." : "We're mostly focused on other priorities right now.";
    }
  }
}

function questionFor(goal: VoiceExtractionGoal): string {
  switch (goal.type) {
    case "DATE/TIME":
      return `What date and time would suit you for the ${goal.displayName.toLowerCase()}?`;
    case "DROPDOWN":
      return `How would you describe your ${goal.displayName.toLowerCase()}: ${(goal.dropdownOptions ?? []).join(", ")}?`;
    case "BOOLEAN":
      return `Quick yes or no: ${goal.displayName.toLowerCase()}?`;
    default:
      return `Could you tell me your ${goal.displayName.toLowerCase()}?`;
  }
}

/**
 * The conversation, in the agent's voice, with the contact's name and variables. Lines are `Agent: …` and
 * `Customer: …`. Null when nothing was said (busy, invalid number, provider error).
 */
export function renderSimulatedTranscript(
  request: PlaceCallRequest,
  plan: SimulatedCallPlan,
  startedAt: Date,
  booking: ToolCallResult | null,
): string | null {
  const { scenario } = plan.outcome;
  const agent = request.agent.name;
  const contact = firstName(request.contact.name);
  const lines: Array<[string, string]> = [];
  const say = (who: string, text: string) => lines.push([who, text]);
  const intro = `Hi ${contact}, this is ${agent} calling. Do you have a couple of minutes?`;
  const context = contextLine(request.contact.variables);

  switch (scenario) {
    case "busy":
    case "invalid-number":
    case "provider-error":
      return null;
    case "voicemail":
      say(
        AGENT,
        `Hi ${contact}, this is ${agent}. ${context ? context.replace(/ Is that still right\?$/, "") + " " : ""}` +
          `I'm calling to follow up and would love to find a time to talk. Please call me back at ${request.from}. Thanks, and have a great day!`,
      );
      break;
    case "no-conversation":
      say(CUSTOMER, "Hello?");
      say(AGENT, intro);
      say(AGENT, "Hello, are you still there? I'll try you again another time. Goodbye.");
      break;
    case "opt-out":
      say(CUSTOMER, "Hello, who is this?");
      say(AGENT, intro);
      say(CUSTOMER, "No. Please remove me from your list and do not call this number again.");
      say(AGENT, "Understood, I'm sorry for the interruption. I've removed your number and you won't hear from us again. Goodbye.");
      break;
    default: {
      const positive = scenario === "goal-with-meeting" || scenario === "goal-no-meeting";
      say(CUSTOMER, `Hello, ${contact} speaking.`);
      say(AGENT, intro);
      say(CUSTOMER, "Sure, go ahead.");
      if (context) {
        say(AGENT, context);
        say(CUSTOMER, "Yes, that's right.");
      }
      request.agent.goals.forEach((goal, index) => {
        say(AGENT, questionFor(goal));
        say(CUSTOMER, answerFor(goal, request, startedAt, positive, index));
      });
      if (scenario === "goal-with-meeting") {
        say(AGENT, "It sounds like a short follow-up meeting with our team would be worthwhile. Shall I book one now?");
        say(CUSTOMER, "Yes, please book it.");
        if (booking?.ok) {
          const when = typeof booking.data?.startTime === "string" ? DateTime.fromISO(booking.data.startTime, { zone: request.contact.timezone || "UTC" }) : null;
          say(AGENT, `Done: you're booked${when?.isValid ? ` for ${when.toFormat("cccc, LLLL d 'at' h:mm a")}` : ""}. ${booking.message}`);
        } else if (booking) {
          say(AGENT, `I wasn't able to complete the booking just now (${booking.message}). A colleague will reach out to confirm a time.`);
        } else {
          say(AGENT, "Great, a colleague will send you an invitation shortly.");
        }
        say(CUSTOMER, "Perfect, thank you.");
      } else if (scenario === "goal-no-meeting") {
        say(AGENT, "Would you like to go ahead and get started with us?");
        say(CUSTOMER, "Yes, let's do it. Sign me up.");
        say(AGENT, "Wonderful, I'll send the details over today.");
      } else if (plan.transfer) {
        const { targetLabel, mode, outcome, fallback } = plan.transfer;
        say(CUSTOMER, `Actually, could I talk to someone from ${targetLabel}, please?`);
        if (outcome === "completed") {
          say(AGENT, mode === "warm" ? `Of course. Please hold for a moment while I get a colleague from ${targetLabel} on the line.` : `Of course. I'm putting you through to ${targetLabel} now.`);
          return lines.map(([who, text]) => `${who}: ${text}`).join("\n");
        }
        say(
          AGENT,
          outcome === "outside-hours"
            ? `I'm sorry, nobody from ${targetLabel} is available right now. I can ${fallback} instead.`
            : `I'm sorry, my colleague from ${targetLabel} could not pick up just now. I can ${fallback} instead.`,
        );
        say(CUSTOMER, "Not right now, I'm afraid. Maybe call me back next quarter.");
        say(AGENT, "No problem at all, I'll make a note of that.");
      } else {
        say(AGENT, "Would you be open to a short follow-up meeting with our team?");
        say(CUSTOMER, "Not right now, I'm afraid. Maybe call me back next quarter.");
        say(AGENT, "No problem at all, I'll make a note of that.");
      }
      say(AGENT, `Thanks for your time, ${contact}. Goodbye!`);
    }
  }
  return withPrivacyTurns(request, lines).map(([who, text]) => `${who}: ${text}`).join("\n");
}

/** What the simulated contact says in the privacy variants (…21 objects to the recording, …31 reads out a card and an SSN). */
export const SIMULATED_OBJECTION = "Hold on. Please don't record this call.";
export const SIMULATED_CARD_AND_SSN = "Sure. My card number is 4111 1111 1111 1111 and my social security number is 536-22-8471.";

/**
 * The disclosures first, word for word (after the contact's hello; at the start of a voicemail message), then the
 * variants' turns after the agent's introduction.
 */
function withPrivacyTurns(request: PlaceCallRequest, lines: Array<[string, string]>): Array<[string, string]> {
  const disclosures = disclosureTexts(request.privacy.disclosures).map(({ text }): [string, string] => [AGENT, text]);
  const voicemail = lines.length === 1 && lines[0]![0] === AGENT;
  const at = voicemail ? 0 : lines[0]?.[0] === CUSTOMER ? 1 : 0;
  const out = [...lines.slice(0, at), ...(voicemail ? disclosures.slice(0, 1) : disclosures), ...lines.slice(at)];
  const suffix = request.to.replace(/\D/g, "").slice(-2);
  const afterIntro = out.findIndex(([who], index) => index > at && who === AGENT && !disclosures.some(([, text]) => text === out[index]![1])) + 1;
  if (!voicemail && afterIntro > 0 && suffix === "21") out.splice(afterIntro, 0, [CUSTOMER, SIMULATED_OBJECTION], [AGENT, "Of course. I have stopped the recording; nothing more of this call is recorded."]);
  if (!voicemail && afterIntro > 0 && suffix === "31") out.splice(afterIntro, 0, [CUSTOMER, SIMULATED_CARD_AND_SSN], [AGENT, "Thank you, I have noted that down."]);
  return out;
}
