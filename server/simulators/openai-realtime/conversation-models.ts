import { randomBytes } from "node:crypto";
import { CALLER_HANG_UP, CALLER_ROLE_MARKER, JUDGE_SCHEMA_NAME } from "@/server/services/agent-tests/caller-protocol";
import { ChatRequestError, type ChatCompletionRequest } from "./chat-completions";

/**
 * The chat-completions stand-ins for agent tests (docs/agent-testing.md, "The embedded models"): the agent, the
 * simulated caller and the LLM judge, answered by rules so the same case always plays the same conversation. They
 * read the same requests a real model gets (the agent's call instructions and tools, the caller's persona, the
 * judge's rubric) and nothing else.
 */


export type ChatMessage = {
  role: string;
  content?: string | null | Array<{ type: string; text?: string }>;
  tool_calls?: Array<{ id: string; type: string; function: { name: string; arguments: string } }>;
  tool_call_id?: string;
};

export type ConversationRequest = Omit<ChatCompletionRequest, "messages"> & {
  messages?: ChatMessage[];
  tools?: Array<{ type: string; function?: { name?: string } }>;
};

const OPT_OUT = /\b(remove me|take me off|do not call|don'?t call|stop calling|unsubscribe|opt(?:ed)? out|no more calls)\b/i;
const NOT_NOW = /\b(busy|not (right )?now|call (me )?back|another time|next (week|month|quarter)|later)\b/i;
const AGREE = /\b(yes|sure|sounds good|book it|let'?s do it|sign me up|okay|ok)\b/i;
const DECLINE = /\b(no thanks|not interested|no,? thank)\b/i;
const GOODBYE = /\b(bye|goodbye)\b/i;

function textOf(message: ChatMessage | undefined): string {
  if (!message?.content) return "";
  if (typeof message.content === "string") return message.content;
  return message.content.map((part) => part.text ?? "").join("");
}

function completion(model: string | undefined, message: Record<string, unknown>, finishReason: string) {
  return {
    id: `chatcmpl-${randomBytes(8).toString("hex")}`,
    object: "chat.completion",
    created: Math.floor(Date.now() / 1000),
    model: model ?? "simulated",
    choices: [{ index: 0, message: { role: "assistant", refusal: null, ...message }, finish_reason: finishReason, logprobs: null }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  };
}

/** Which kind of conversation request this is, or null when it is none of them (the analyser's, say). */
export function conversationRequestKind(body: ConversationRequest): "agent" | "caller" | "judge" | null {
  if (body.response_format?.json_schema?.name === JUDGE_SCHEMA_NAME) return "judge";
  if (body.response_format) return null;
  if (body.tools?.length) return "agent";
  if (textOf(body.messages?.[0]).startsWith(CALLER_ROLE_MARKER)) return "caller";
  return null;
}

export function answerConversationRequest(body: ConversationRequest): Record<string, unknown> {
  const kind = conversationRequestKind(body);
  if (kind === "agent") return answerAsAgent(body);
  if (kind === "caller") return completion(body.model, { content: answerAsCaller(body.messages ?? []) }, "stop");
  if (kind === "judge") return completion(body.model, { content: JSON.stringify(judge(body.messages ?? [])) }, "stop");
  throw new ChatRequestError(400, "This simulator answers the call analyser, agent tests' agent (with tools), simulated caller and judge only.");
}

type AgentScript = {
  name: string;
  contactFirstName: string;
  goals: string[];
  canBook: boolean;
  toolNames: Set<string>;
};

/** What the stand-in agent reads from its call instructions (server/voice/conversation/instructions.ts). */
function readInstructions(instructions: string, toolNames: Set<string>): AgentScript {
  const [ownPrompt = ""] = instructions.split("\n# This call");
  const name = instructions.match(/You are (.+?), on an outbound phone call to (.+?)\.\n/);
  const goalsBlock = instructions.split("During the conversation, find out:\n")[1]?.split("\n\n")[0] ?? "";
  const goals = goalsBlock
    .split("\n")
    .filter((line) => line.startsWith("- "))
    .map((line) => line.slice(2).split(":")[0]!.trim())
    .filter(Boolean);
  // Prompt cue: an agent told not to book offers a colleague's follow-up instead.
  const forbidsBooking = /\b(never|do not|don'?t|must not)\s+book\b/i.test(ownPrompt);
  const hasCalendar = !instructions.includes("no calendar is configured for this agent");
  return {
    name: name?.[1] ?? "the agent",
    contactFirstName: (name?.[2] ?? "").split(/\s+/)[0] ?? "",
    goals,
    canBook: hasCalendar && !forbidsBooking && toolNames.has("book_meeting"),
    toolNames,
  };
}

const MEETING_QUESTION = "Would you like to book a short follow-up meeting?";

function question(goal: string): string {
  return `Could you tell me your ${goal.toLowerCase()}?`;
}

/**
 * The stand-in agent: greets and asks for each goal of its instructions in turn, then proposes a meeting; books it
 * (book_meeting) when the caller agrees and it may, records an opt-out (opt_out) when asked, says goodbye and hangs
 * up (end_call) when the caller has no time, declines or says goodbye. One tool call per answer, like a model.
 */
function answerAsAgent(body: ConversationRequest): Record<string, unknown> {
  const messages = body.messages ?? [];
  const toolNames = new Set((body.tools ?? []).map((tool) => String(tool.function?.name)));
  const script = readInstructions(textOf(messages.find((message) => message.role === "system")), toolNames);
  const say = (content: string) => completion(body.model, { content }, "stop");
  const call = (name: string, args: Record<string, unknown>, content: string | null = null) =>
    toolNames.has(name)
      ? completion(body.model, { content, tool_calls: [{ id: `call_${randomBytes(6).toString("hex")}`, type: "function", function: { name, arguments: JSON.stringify(args) } }] }, "tool_calls")
      : say(content ?? "Goodbye.");
  const last = messages.at(-1);
  const agentSaid = messages.filter((message) => message.role === "assistant").map(textOf);

  if (last?.role === "tool") {
    const toolCall = messages.flatMap((message) => message.tool_calls ?? []).find((candidate) => candidate.id === last.tool_call_id);
    const ok = /"ok"\s*:\s*true/.test(textOf(last));
    if (toolCall?.function.name === "book_meeting") {
      return call("end_call", { reason: "meeting booked" }, ok ? "Great, your meeting is booked. You will get an invitation by email. Thanks, and goodbye!" : "I could not complete the booking just now. A colleague will reach out to confirm a time. Goodbye!");
    }
    if (toolCall?.function.name === "opt_out") return call("end_call", { reason: "opted out" }, "Understood. I have removed your number and you will not hear from us again. Goodbye.");
    return say("Goodbye.");
  }

  const heard = textOf(last);
  if (OPT_OUT.test(heard)) return call("opt_out", {});
  const proposed = agentSaid.some((text) => text.includes(MEETING_QUESTION));
  if (proposed && AGREE.test(heard) && !DECLINE.test(heard)) {
    if (script.canBook) return call("book_meeting", { preferredStartTime: heard.match(/\b(?:on |for )?((?:next )?(?:mon|tues|wednes|thurs|fri|satur|sun)day(?: (?:morning|afternoon|evening))?|tomorrow(?: (?:morning|afternoon))?)\b/i)?.[1] ?? null });
    return call("end_call", { reason: "goal reached" }, "Wonderful, a colleague will send you the details today. Goodbye!");
  }
  if (NOT_NOW.test(heard) || DECLINE.test(heard)) return call("end_call", { reason: "not now" }, "No problem at all, I will make a note of that. Thanks for your time, goodbye!");
  if (GOODBYE.test(heard) && agentSaid.length > 0) return call("end_call", { reason: "goodbye" }, "Thanks for your time, goodbye!");
  if (proposed) return call("end_call", { reason: "no commitment" }, "Thanks for your time, goodbye!");

  const asked = script.goals.filter((goal) => agentSaid.some((text) => text.includes(question(goal))));
  const next = script.goals.find((goal) => !asked.includes(goal));
  const ask = next ? question(next) : MEETING_QUESTION;
  if (agentSaid.length === 0) return say(`Hi${script.contactFirstName ? ` ${script.contactFirstName}` : ""}, this is ${script.name}. ${ask}`);
  return say(`Thank you. ${ask}`);
}

type Persona = { intent: "opt-out" | "agree" | "not-now" | "decline"; when: string | null; facts: Array<{ key: string; value: string }> };

/** The caller's system prompt: the persona follows `# Who you are` up to the next heading. */
function readPersona(system: string): Persona {
  const persona = system.split("# Who you are\n")[1]?.split("\n# ")[0] ?? system;
  const facts = persona
    .split("\n")
    .map((line) => line.replace(/^\s*[-*]\s*/, "").match(/^([A-Za-z][\w ]{1,40}?)\s*(?::|=| is )\s*(.+)$/))
    .filter((match): match is RegExpMatchArray => match !== null)
    .map((match) => ({ key: match[1]!.trim().toLowerCase(), value: match[2]!.trim().replace(/[.]+$/, "") }));
  const when = persona.match(/\b((?:next )?(?:mon|tues|wednes|thurs|fri|satur|sun)day(?: (?:morning|afternoon|evening))?|tomorrow(?: (?:morning|afternoon))?)\b/i)?.[1] ?? null;
  const intent = OPT_OUT.test(persona) || /\bstop\b/i.test(persona)
    ? "opt-out"
    : /\b(agree|accept|book|sign up|yes)\w*/i.test(persona)
      ? "agree"
      : NOT_NOW.test(persona)
        ? "not-now"
        : "decline";
  return { intent, when, facts };
}

/**
 * The stand-in caller: answers the phone, answers the agent's questions from the `key: value` facts of its persona,
 * and reacts to the meeting proposal by its persona's intent (agrees — for the day it names —, has no time, declines,
 * or asks to stop calling, which it says at its first chance). Hangs up once the agent says goodbye.
 */
function answerAsCaller(messages: ChatMessage[]): string {
  const persona = readPersona(textOf(messages[0]));
  const agentLines = messages.filter((message) => message.role === "user").map(textOf);
  const heard = agentLines.at(-1);
  if (heard === undefined) return "Hello?";
  if (/\bgoodbye\b/i.test(heard)) return CALLER_HANG_UP;
  if (persona.intent === "opt-out") return "Please remove me from your list and do not call this number again.";
  if (persona.intent === "not-now") {
    const later = persona.when ?? (/next week/i.test(textOf(messages[0])) ? "next week" : "another time");
    return `Sorry, I am busy right now. Please call me back ${later}.`;
  }
  const lowered = heard.toLowerCase();
  const fact = persona.facts.find((candidate) => lowered.includes(candidate.key));
  if (fact) return `${fact.value}.`;
  if (/meeting/i.test(heard)) {
    if (persona.intent === "agree") return `Yes, that sounds good. Please book it${persona.when ? ` for ${persona.when}` : ""}.`;
    return "No thanks, I am not interested.";
  }
  return "I am not sure, to be honest.";
}

/**
 * The stand-in judge: the value passes when it is not empty and contains every term the rubric quotes ("…" or '…');
 * a rubric without quoted terms passes any non-empty value.
 */
function judge(messages: ChatMessage[]): { passed: boolean; reasoning: string } {
  let request: { rubric?: string; value?: unknown };
  try {
    request = JSON.parse(textOf(messages.findLast((message) => message.role === "user")));
  } catch {
    throw new ChatRequestError(400, "The user message must be the judgement request as JSON.");
  }
  const value = request.value === null || request.value === undefined ? "" : String(request.value);
  if (!value.trim()) return { passed: false, reasoning: "The value is empty." };
  const terms = [...String(request.rubric ?? "").matchAll(/["“']([^"”']+)["”']/g)].map((match) => match[1]!.toLowerCase());
  const missing = terms.filter((term) => !value.toLowerCase().includes(term));
  if (missing.length > 0) return { passed: false, reasoning: `The value does not mention ${missing.map((term) => `"${term}"`).join(", ")}.` };
  return { passed: true, reasoning: terms.length ? `The value mentions ${terms.map((term) => `"${term}"`).join(", ")}.` : "The value is present." };
}
