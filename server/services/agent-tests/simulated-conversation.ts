import type OpenAI from "openai";
import type { TestContact, TestToolCall, TestTurn } from "@/db/schema";
import { CALLER_HANG_UP, CALLER_ROLE_MARKER, JUDGE_SCHEMA_NAME } from "./caller-protocol";
import { chatCompletionTools, type CallToolName } from "@/server/voice/conversation/call-tools";
import { buildCallInstructions } from "@/server/voice/conversation/instructions";
import type { PlaceCallRequest, ToolCallResult } from "@/server/voice/types";
import type { TestModels } from "./models";

/** A conversation stops here when nobody ends it: spoken turns, agent and caller together. */
export const DEFAULT_TURN_LIMIT = 30;

export type ToolHandlers = {
  book_meeting(args: { preferredStartTime: string | null }): Promise<ToolCallResult>;
  opt_out(): Promise<ToolCallResult> | ToolCallResult;
};

export type SimulatedConversation = {
  transcript: TestTurn[];
  toolCalls: TestToolCall[];
  /** Spoken turns (tool calls are not turns). */
  turns: number;
  endedBy: "agent" | "caller" | "turn-limit";
};

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** The simulated caller's instructions; the persona is the admin's text (the embedded stand-in reads it between the headings). */
export function callerInstructions(persona: string, contact: TestContact): string {
  return [
    `${CALLER_ROLE_MARKER}, to test a company's voice agent. Stay in character; never say you are an AI or that this is a test.`,
    "",
    "# Who you are",
    persona.trim(),
    "",
    "# The call",
    `Your name is ${contact.name}.${contact.email ? ` Your email address is ${contact.email}.` : ""} You answer your phone and an agent calls you.`,
    "",
    "# How to answer",
    `Say only what you would say on the phone, in one or two short sentences. When the agent has said goodbye, or you hang up, reply with exactly ${CALLER_HANG_UP}.`,
  ].join("\n");
}

/**
 * One test conversation as text: the agent (the agent's model with the call's own instructions and tool schemas)
 * and the simulated caller (another model with the persona) take turns, the caller first as on an answered phone.
 * Tool calls run through `tools` (test mode); the agent speaks again after a tool's result. It ends when the agent
 * calls end_call, the caller hangs up, or `turnLimit` spoken turns have passed.
 */
export async function playSimulatedConversation(params: {
  models: TestModels;
  request: PlaceCallRequest;
  persona: string;
  contact: TestContact;
  tools: ToolHandlers;
  now: Date;
  turnLimit: number;
}): Promise<SimulatedConversation> {
  const { models } = params;
  const agentMessages: Message[] = [{ role: "system", content: buildCallInstructions(params.request, params.now) }];
  const callerMessages: Message[] = [{ role: "system", content: callerInstructions(params.persona, params.contact) }];
  const transcript: TestTurn[] = [];
  const toolCalls: TestToolCall[] = [];
  const tools = chatCompletionTools();

  const callerSays = async (): Promise<boolean> => {
    const completion = await models.client.chat.completions.create({ model: models.callerModel, messages: callerMessages, temperature: 0 });
    const text = (completion.choices[0]?.message.content ?? "").trim();
    const spoken = text.replace(CALLER_HANG_UP, "").trim();
    if (spoken) {
      transcript.push({ speaker: "customer", text: spoken });
      agentMessages.push({ role: "user", content: spoken });
      callerMessages.push({ role: "assistant", content: spoken });
    }
    return text.includes(CALLER_HANG_UP) || !text;
  };

  if (await callerSays()) return { transcript, toolCalls, turns: transcript.length, endedBy: "caller" };
  // Each round: the agent answers (speaking, calling tools, or both); after a tool result it answers again.
  for (let rounds = 0; transcript.length < params.turnLimit && rounds < params.turnLimit * 3; rounds += 1) {
    const completion = await models.client.chat.completions.create({ model: models.agentModel, messages: agentMessages, tools, parallel_tool_calls: false, temperature: 0 });
    const message = completion.choices[0]?.message;
    const content = message?.content?.trim() ?? "";
    const calls = (message?.tool_calls ?? []).filter((call) => call.type === "function");
    agentMessages.push({ role: "assistant", content: content || null, ...(calls.length ? { tool_calls: calls } : {}) });
    if (content) {
      transcript.push({ speaker: "agent", text: content });
      callerMessages.push({ role: "user", content });
    }
    let ended = false;
    for (const call of calls) {
      const name = call.function.name as CallToolName;
      let args: Record<string, unknown> = {};
      try {
        args = JSON.parse(call.function.arguments || "{}");
      } catch {
        args = {};
      }
      let result: ToolCallResult;
      if (name === "book_meeting") result = await params.tools.book_meeting({ preferredStartTime: typeof args.preferredStartTime === "string" ? args.preferredStartTime : null });
      else if (name === "opt_out") result = await params.tools.opt_out();
      else if (name === "end_call") {
        ended = true;
        result = { ok: true, message: "The call is being ended." };
      } else result = { ok: false, message: `Unknown tool ${call.function.name}.` };
      toolCalls.push({ name: call.function.name, arguments: args, result });
      agentMessages.push({ role: "tool", tool_call_id: call.id, content: JSON.stringify(result) });
    }
    if (ended) return { transcript, toolCalls, turns: transcript.length, endedBy: "agent" };
    if (calls.length > 0) continue;
    if (await callerSays()) return { transcript, toolCalls, turns: transcript.length, endedBy: "caller" };
  }
  return { transcript, toolCalls, turns: transcript.length, endedBy: "turn-limit" };
}

/** An LLM judgement of one extracted value against the admin's rubric (strict structured output: passed + reasoning). */
export async function judgeValue(models: TestModels, params: { slug: string; value: unknown; rubric: string; transcript: string }): Promise<{ passed: boolean; reasoning: string }> {
  const completion = await models.client.chat.completions.create({
    model: models.judgeModel,
    temperature: 0,
    response_format: {
      type: "json_schema",
      json_schema: {
        name: JUDGE_SCHEMA_NAME,
        strict: true,
        schema: {
          type: "object",
          properties: { passed: { type: "boolean" }, reasoning: { type: "string" } },
          required: ["passed", "reasoning"],
          additionalProperties: false,
        },
      },
    },
    messages: [
      {
        role: "system",
        content:
          "You check one value a post-call analyser extracted from a phone conversation against a rubric. Answer whether the value satisfies the rubric, and why in one sentence. Judge the value, using the transcript only for context.",
      },
      { role: "user", content: JSON.stringify({ variable: params.slug, value: params.value, rubric: params.rubric, transcript: params.transcript }) },
    ],
  });
  const text = completion.choices[0]?.message.content ?? "";
  try {
    const parsed = JSON.parse(text) as { passed?: unknown; reasoning?: unknown };
    return { passed: parsed.passed === true, reasoning: String(parsed.reasoning ?? "") };
  } catch {
    return { passed: false, reasoning: "The judge's answer was not the expected JSON." };
  }
}
