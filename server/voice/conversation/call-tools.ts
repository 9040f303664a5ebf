import { z } from "zod";

/**
 * The three tools of a call's agent: names, descriptions and parameters. The phone call's Realtime session
 * (conversation.ts), the browser test call (the same session) and the text simulations of agent tests
 * (server/services/agent-tests) all declare them from here, so a test exercises the schemas a call uses.
 */
export const CALL_TOOLS = {
  book_meeting: {
    description: "Book the follow-up meeting the contact agreed to, through the agent's calendar. Returns whether it was booked and the details to confirm.",
    parameters: z.object({ preferredStartTime: z.string().nullable().describe("When the contact would like to meet, as they said it; null if they did not say.") }),
  },
  opt_out: {
    description: "The contact asked not to be called again: record it now (their number is never called again by this organization).",
    parameters: z.object({}),
  },
  end_call: {
    description: "Hang up. Call it only after you have said goodbye.",
    parameters: z.object({ reason: z.string().nullable().describe("Why the call ends, in a few words.") }),
  },
} as const;

export type CallToolName = keyof typeof CALL_TOOLS;
export const CALL_TOOL_NAMES = Object.keys(CALL_TOOLS) as CallToolName[];

/** The tools as chat-completions function tools (strict JSON schema, as the Realtime SDK sends them). */
export function chatCompletionTools() {
  return CALL_TOOL_NAMES.map((name) => {
    const { $schema: _schema, ...parameters } = z.toJSONSchema(CALL_TOOLS[name].parameters) as Record<string, unknown>;
    return { type: "function" as const, function: { name, description: CALL_TOOLS[name].description, parameters, strict: true } };
  });
}
