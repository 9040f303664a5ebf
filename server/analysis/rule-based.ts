import { DateTime } from "luxon";
import type { CallAction, CallOutcome } from "@/db/schema";
import type { AnalysisInput, AnalysisResult, CallAnalyzer, ExtractionDefinition, FinalResultType } from "./types";
import { action, coerceExtractedValue, normalizeAnalysis, parseSpokenDateTime } from "./values";

export type TranscriptLine = { speaker: "agent" | "customer"; text: string };

const AGENT_LABELS = /^(agent|assistant|ai|bot)$/i;
const CUSTOMER_LABELS = /^(customer|user|contact|human|caller|callee)$/i;

/** `Agent: …` / `Customer: …` lines (also `User:`, `Assistant:` …); unlabelled lines continue the previous turn. */
export function parseTranscript(transcript: string | null): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  for (const raw of (transcript ?? "").split(/\r?\n/)) {
    const line = raw.trim();
    if (!line) continue;
    const match = line.match(/^([A-Za-z][\w ]{0,30}?):\s*(.*)$/);
    if (match && AGENT_LABELS.test(match[1]!)) lines.push({ speaker: "agent", text: match[2]! });
    else if (match && CUSTOMER_LABELS.test(match[1]!)) lines.push({ speaker: "customer", text: match[2]! });
    else if (lines.length > 0) lines[lines.length - 1]!.text += ` ${line}`;
  }
  return lines;
}

const OPT_OUT = /\b(remove me|take me off|do not call|don'?t call|stop calling|unsubscribe|opt(?:ed)? out|no more calls)\b/i;
const GOAL = /\b(book it|book that|book me|let'?s do it|sign me up|count me in|i'?m in\b|schedule it|let'?s get started)\b/i;
const CALLBACK = /\b(call me back|call back|try me again|reach out again|another time)\b(.*)$/i;

/** Which result a conversation (an answered call) reached, and the customer line that shows it. */
export function classifyConversation(lines: TranscriptLine[]): { resultType: FinalResultType; evidence: string | null } {
  const customer = lines.filter((line) => line.speaker === "customer");
  const optOut = customer.find((line) => OPT_OUT.test(line.text));
  if (optOut) return { resultType: "Opted Out", evidence: optOut.text };
  const words = customer.reduce((count, line) => count + line.text.split(/\s+/).filter(Boolean).length, 0);
  if (customer.length < 2 || words < 6) return { resultType: "No Conversation", evidence: customer[0]?.text ?? null };
  const goal = customer.find((line) => GOAL.test(line.text));
  if (goal) return { resultType: "Goal Completed", evidence: goal.text };
  return { resultType: "Goal Not Completed", evidence: customer[customer.length - 1]?.text ?? null };
}

function wordsOf(text: string): string[] {
  return text.toLowerCase().replace(/[_-]+/g, " ").split(/[^a-z0-9]+/).filter((word) => word.length > 2);
}

/** The customer's answer to the agent's question about this definition (the first customer turn after it). */
function answerTo(definition: ExtractionDefinition, lines: TranscriptLine[]): string | null {
  const name = definition.displayName.toLowerCase();
  const slugWords = wordsOf(definition.slug);
  for (let index = 0; index < lines.length; index += 1) {
    const line = lines[index]!;
    if (line.speaker !== "agent") continue;
    const text = line.text.toLowerCase();
    const asked = text.includes(name) || (slugWords.length > 0 && slugWords.every((word) => text.includes(word)));
    if (!asked) continue;
    const answer = lines.slice(index + 1).find((next) => next.speaker === "customer");
    return answer?.text ?? null;
  }
  return null;
}

function sentimentOf(resultType: FinalResultType): string {
  if (resultType === "Goal Completed") return "positive";
  if (resultType === "Opted Out") return "negative";
  return "neutral";
}

function extractValue(definition: ExtractionDefinition, lines: TranscriptLine[], input: AnalysisInput, resultType: FinalResultType) {
  const answer = answerTo(definition, lines);
  const context = { reference: input.endedAt, contactZone: input.contact.timezone };
  const customerText = lines.filter((line) => line.speaker === "customer").map((line) => line.text).join(" ");
  switch (definition.type) {
    case "DROPDOWN": {
      const options = [...(definition.dropdownOptions ?? [])].sort((a, b) => b.length - a.length);
      const within = (text: string) => options.find((option) => new RegExp(`\\b${option.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\\b`, "i").test(text));
      return (answer && within(answer)) ?? null;
    }
    case "DATE/TIME": {
      const spoken = answer ? parseSpokenDateTime(answer, input.endedAt, input.contact.timezone || "UTC") : null;
      const meeting = !spoken && input.meeting && /meeting|appointment|booking|follow/i.test(`${definition.slug} ${definition.displayName}`) ? DateTime.fromISO(input.meeting.startTime) : null;
      const instant = spoken ?? (meeting?.isValid ? meeting : null);
      return instant ? coerceExtractedValue(definition, instant.toISO(), context) : null;
    }
    case "NUMBER": {
      const number = answer?.match(/-?\d[\d,]*(?:\.\d+)?/);
      return number ? coerceExtractedValue(definition, number[0].replace(/,/g, ""), context) : null;
    }
    case "BOOLEAN": {
      if (!answer) return null;
      if (/^\s*(yes|yeah|yep|sure|correct|absolutely|definitely)\b/i.test(answer)) return true;
      if (/^\s*(no|nope|not)\b/i.test(answer)) return false;
      return null;
    }
    default: {
      if (/sentiment|mood|tone/i.test(definition.slug)) return sentimentOf(resultType);
      if (answer) return answer.trim().replace(/[.!]+$/, "");
      if (/email/i.test(definition.slug)) return customerText.match(/[\w.+-]+@[\w-]+\.[\w.-]+/)?.[0] ?? null;
      return null;
    }
  }
}

/** Keywords that tie an outcome definition to a result, strongest first. */
const OUTCOME_KEYWORDS: Record<FinalResultType, string[]> = {
  "Goal Completed": ["meeting booked", "booked", "appointment", "meeting", "scheduled", "goal", "success", "converted", "won", "qualified", "interested"],
  "Goal Not Completed": ["interested", "follow up", "follow-up", "callback", "call back", "nurture", "later", "maybe"],
  "Opted Out": ["do not call", "opted out", "opt out", "opt-out", "unsubscribe", "not interested", "declined", "remove"],
  Voicemail: ["voicemail", "left message", "message", "no answer", "unreachable"],
  "No Conversation": ["no conversation", "no answer", "hung up", "no response", "unreachable"],
  Busy: ["busy", "no answer", "unreachable"],
  "Invalid Phone Number": ["invalid", "wrong number", "bad number", "disconnected"],
  Failed: ["failed", "error"],
};

/** The configured outcome that best fits the result (none when no definition relates to it). */
export function chooseOutcome(input: AnalysisInput, resultType: FinalResultType, reasoning: string): CallOutcome[] {
  const keywords = OUTCOME_KEYWORDS[resultType];
  let best: { name: string; score: number } | null = null;
  for (const definition of input.outcomeDefinitions) {
    const name = definition.name.toLowerCase();
    const description = definition.description.toLowerCase();
    let score = 0;
    keywords.forEach((keyword, index) => {
      const weight = keywords.length - index;
      if (name.includes(keyword)) score += 3 * weight;
      else if (description.includes(keyword)) score += weight;
    });
    const negated = /\b(not|no|never)\b/.test(name);
    if (negated && (resultType === "Goal Completed" || resultType === "Goal Not Completed")) score -= 40;
    if (resultType === "Goal Completed" && !input.meeting && /book|meeting|appointment/.test(name)) score -= 10;
    if (score > 0 && (!best || score > best.score)) best = { name: definition.name, score };
  }
  return best ? [{ name: best.name, reasoning }] : [];
}

function firstName(name: string): string {
  return name.trim().split(/\s+/)[0] || name;
}

function minutesAndSeconds(seconds: number): string {
  const minutes = Math.floor(seconds / 60);
  const rest = seconds % 60;
  return minutes > 0 ? `${minutes} min ${rest} s` : `${rest} s`;
}

function resultTypeForDisposition(input: AnalysisInput, lines: TranscriptLine[]): { resultType: FinalResultType; evidence: string | null } {
  switch (input.disposition) {
    case "answered":
      return classifyConversation(lines);
    case "voicemail":
      return { resultType: "Voicemail", evidence: null };
    case "busy":
    case "no-answer":
      return { resultType: "Busy", evidence: null };
    case "invalid-number":
      return { resultType: "Invalid Phone Number", evidence: null };
    default:
      return { resultType: "Failed", evidence: null };
  }
}

/**
 * The default analyser: reads the transcript with rules (no model). The result type follows the telephony
 * disposition, and for answered calls what the contact said (opt-out phrases, commitment phrases, or too little
 * to be a conversation); extracted variables come from the contact's answers to the agent's questions.
 */
export function analyzeWithRules(input: AnalysisInput): AnalysisResult {
  const lines = parseTranscript(input.transcript);
  const { resultType, evidence } = resultTypeForDisposition(input, lines);
  const agent = input.agent.name;
  const contact = input.contact.name;
  const at = input.endedAt;

  const extractedVariables: AnalysisResult["extractedVariables"] = {};
  const captured: string[] = [];
  for (const definition of input.extractionDefinitions) {
    const value = input.disposition === "answered" ? extractValue(definition, lines, input, resultType) : null;
    extractedVariables[definition.slug] = value;
    if (value !== null && !/sentiment|mood|tone/i.test(definition.slug)) captured.push(`${definition.displayName.toLowerCase()}: ${value}`);
  }

  const quote = evidence ? ` ("${evidence.replace(/"/g, "'")}")` : "";
  const agentActions: CallAction[] = [];
  const humanActions: CallAction[] = [];
  let summary: string;
  let reasoning: string;
  const talked = `${agent} spoke with ${contact} for ${minutesAndSeconds(input.durationSeconds)}.`;
  const capturedText = captured.length > 0 ? ` Captured ${captured.join("; ")}.` : "";

  switch (resultType) {
    case "Goal Completed":
      if (input.meeting) {
        const when = DateTime.fromISO(input.meeting.startTime, { zone: input.contact.timezone || "UTC" });
        summary = `${talked} ${firstName(contact)} agreed to a follow-up meeting, booked for ${when.isValid ? when.toFormat("cccc, LLLL d 'at' h:mm a ZZZZ") : input.meeting.startTime} with ${input.meeting.hostEmail}.${capturedText}`;
        agentActions.push(action("book_meeting", "Booked a follow-up meeting through the calendar tool", at, { startTime: input.meeting.startTime, endTime: input.meeting.endTime, hostEmail: input.meeting.hostEmail }));
        humanActions.push(action("accept_meeting", "Agreed to a follow-up meeting", at));
        reasoning = `The contact agreed to meet and the meeting was booked${quote}.`;
      } else {
        summary = `${talked} ${firstName(contact)} agreed to move forward; the goal of the call was reached.${capturedText}`;
        agentActions.push(action("confirm_next_steps", "Confirmed next steps and promised to send the details", at));
        humanActions.push(action("agree_to_proceed", "Agreed to move forward", at));
        reasoning = `The contact committed to the next step${quote}.`;
      }
      break;
    case "Goal Not Completed": {
      summary = `${talked} ${firstName(contact)} was open to talking but did not commit to a next step.${capturedText}`;
      const callback = lines.filter((line) => line.speaker === "customer").map((line) => line.text.match(CALLBACK)).find(Boolean);
      if (callback) {
        humanActions.push(action("request_callback", "Asked to be called back later", at, { when: callback[2]!.trim().replace(/[.!]+$/, "") || null }));
        agentActions.push(action("note_follow_up", "Noted the contact's request for a later follow-up", at));
      }
      reasoning = `The conversation took place but the contact did not agree to the goal${quote}.`;
      break;
    }
    case "Opted Out":
      summary = `${contact} asked not to be called again. ${agent} apologised and the number was added to the organization's do-not-call list.`;
      humanActions.push(action("opt_out", "Asked to be removed from the call list", at));
      agentActions.push(action("add_to_do_not_call", "Added the number to the do-not-call list", at));
      reasoning = `The contact explicitly opted out${quote}.`;
      break;
    case "No Conversation":
      summary = `The call to ${contact} connected but no meaningful conversation took place.`;
      reasoning = `The contact said almost nothing${quote}.`;
      break;
    case "Voicemail":
      summary = `${agent} reached ${contact}'s voicemail and left a message asking for a call back.`;
      agentActions.push(action("leave_voicemail", "Left a voicemail asking for a call back", at));
      reasoning = "The call was answered by voicemail.";
      break;
    case "Busy":
      summary = `The line was busy; the call to ${contact} did not connect.`;
      reasoning = "The line was busy.";
      break;
    case "Invalid Phone Number":
      summary = `The number dialed for ${contact} is invalid or not in service.`;
      reasoning = "The carrier reported the number as invalid.";
      break;
    default:
      summary = `The call to ${contact} failed because of a provider error${input.errorMessage ? ` (${input.errorMessage})` : ""}.`;
      reasoning = "The provider reported an error.";
  }
  if (captured.length > 0) agentActions.push(action("capture_information", `Captured ${captured.map((item) => item.split(":")[0]).join(", ")}`, at, { variables: captured.length }));

  return normalizeAnalysis(
    { resultType, summary, extractedVariables, outcomes: chooseOutcome(input, resultType, reasoning), agentActions, humanActions },
    input,
  );
}

export const ruleBasedAnalyzer: CallAnalyzer = {
  kind: "rules",
  async analyze(input) {
    return analyzeWithRules(input);
  },
};
