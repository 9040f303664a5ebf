import { z } from "zod";
import { ZAgentIdSchema } from "./agent";
import {
  MAX_EMAIL_LENGTH,
  MAX_NAME_LENGTH,
  MAX_SLUG_LENGTH,
  MAX_TEST_EXPECTED_NUMBER,
  MAX_TEST_EXPECTATIONS,
  MAX_TEST_PERSONA_LENGTH,
  MAX_TEST_RUBRIC_LENGTH,
  MAX_TEST_TURNS,
  MAX_TIMEZONE_LENGTH,
  MAX_VARIABLE_NAME_LENGTH,
  MAX_VARIABLE_VALUE_LENGTH,
} from "./limits";
import { boundedText as text, idText } from "./text";

/* Agent tests: test cases, runs and their results (docs/agent-testing.md). Shared by REST and the console. */

const toolName = z.enum(["book_meeting", "opt_out", "end_call"]).describe("One of the call's tools.");
const scalar = z.union([z.string().max(MAX_VARIABLE_VALUE_LENGTH), z.number().min(-MAX_TEST_EXPECTED_NUMBER).max(MAX_TEST_EXPECTED_NUMBER), z.boolean()]);

export const ZTestValueMatcherSchema = z
  .discriminatedUnion("type", [
    z.object({ type: z.literal("exact"), value: z.union([scalar, z.null()]).describe("Equal to this (text: ignoring case and surrounding space; null: not extracted).") }),
    z.object({ type: z.literal("oneOf"), values: z.array(scalar).min(1).max(MAX_TEST_EXPECTATIONS).describe("Equal to one of these.") }),
    z.object({ type: z.literal("regex"), pattern: text(MAX_VARIABLE_VALUE_LENGTH).describe("A JavaScript regular expression the value (as text) must match."), flags: z.string().regex(/^[imsu]*$/).max(4).optional() }),
    z.object({ type: z.literal("judge"), rubric: text(MAX_TEST_RUBRIC_LENGTH).min(1).describe("What the value must satisfy, judged by an LLM (embedded: every quoted term must appear).") }),
  ])
  .describe("How an extracted variable's value is checked.");

export const ZTestExpectationsSchema = z
  .object({
    resultType: z.string().max(MAX_NAME_LENGTH).optional().describe("The callResult.resultType the webhook would carry, e.g. `Goal Completed`."),
    outcomes: z.array(text(MAX_NAME_LENGTH)).max(MAX_TEST_EXPECTATIONS).optional().describe("Outcome names the result must carry (each of them)."),
    extractedVariables: z
      .array(z.object({ slug: text(MAX_SLUG_LENGTH), match: ZTestValueMatcherSchema }))
      .max(MAX_TEST_EXPECTATIONS)
      .optional()
      .describe("Checks of callResult.extractedVariables."),
    toolsCalled: z.array(toolName).max(3).optional().describe("Tools the agent must call."),
    toolsNotCalled: z.array(toolName).max(3).optional().describe("Tools the agent must not call."),
    meetingBooked: z.boolean().optional().describe("Whether book_meeting must get a slot from the calendar (test mode books nothing)."),
    maxTurns: z.number().int().min(1).max(MAX_TEST_TURNS).optional().describe("The conversation must end within this many spoken turns (agent and caller together)."),
  })
  .describe("What the conversation must produce. At least one expectation; each is one check.");

export const ZTestContactSchema = z
  .object({
    name: text(MAX_NAME_LENGTH).optional().describe("Default `Test Caller`."),
    email: z.email().max(MAX_EMAIL_LENGTH).nullable().optional().describe("Needed for book_meeting (the invite; CRM mode looks it up)."),
    timezone: text(MAX_TIMEZONE_LENGTH).optional().describe("IANA; default the agent's first timezone."),
  })
  .describe("Who the simulated caller is to the agent (the call's contact).");

export const ZTestCaseInputSchema = z.object({
  name: text(MAX_NAME_LENGTH).trim().min(1).describe("A short name, e.g. `Agrees to a Tuesday meeting`."),
  persona: text(MAX_TEST_PERSONA_LENGTH).trim().min(1).describe("Instructions for the simulated caller: who they are, what they want, how they behave. `key: value` lines are facts they answer with."),
  contact: ZTestContactSchema.optional(),
  inputVariables: z.record(text(MAX_VARIABLE_NAME_LENGTH), text(MAX_VARIABLE_VALUE_LENGTH)).optional().describe("The agent's input variables for this conversation, as at enrollment."),
  expectations: ZTestExpectationsSchema,
});

const exampleCase = {
  name: "Agrees to a Tuesday meeting",
  persona: "Busy operations manager who is happy to meet. Agrees to a meeting on Tuesday morning.\ninterest level: high\nbudget: 5000",
  contact: { name: "Jordan Lee", email: "jordan.lee@crm.example.com", timezone: "America/New_York" },
  inputVariables: { company_name: "Northwind" },
  expectations: {
    resultType: "Goal Completed",
    outcomes: ["Meeting booked"],
    extractedVariables: [
      { slug: "interest_level", match: { type: "oneOf", values: ["high", "medium"] } },
      { slug: "budget", match: { type: "regex", pattern: "^\\d+$" } },
    ],
    toolsCalled: ["book_meeting"],
    toolsNotCalled: ["opt_out"],
    meetingBooked: true,
    maxTurns: 14,
  },
};

export const ZTestCaseSchema = ZTestCaseInputSchema.extend({
  testCaseId: z.string().describe("Format `test-case.<id>`."),
  agentId: z.string(),
  contact: z.object({ name: z.string(), email: z.string().nullable(), timezone: z.string() }),
  inputVariables: z.record(z.string(), z.string()),
  createdAt: z.string(),
  updatedAt: z.string(),
}).meta({ examples: [{ testCaseId: "test-case.01jfd0f3v2m1c6qg5n2z8r4k7t", agentId: "agent.01jfczz8x3q4w5e6r7t8y9u0i1", ...exampleCase, createdAt: "2026-11-28T09:00:00.000Z", updatedAt: "2026-11-28T09:00:00.000Z" }] });

export const ZTestCheckSchema = z.object({
  expectation: z.string().describe("The expectation, e.g. `tool book_meeting called`."),
  passed: z.boolean(),
  reason: z.string().describe("Why it passed or failed, e.g. `tools called: end_call`."),
});

export const ZTestTurnSchema = z.object({ speaker: z.enum(["agent", "customer"]), text: z.string() });
export const ZTestToolCallSchema = z.object({
  name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  result: z.object({ ok: z.boolean(), message: z.string(), data: z.record(z.string(), z.unknown()).optional() }),
});

export const ZTestResultSchema = z.object({
  testCaseId: z.string(),
  name: z.string(),
  status: z.enum(["pending", "passed", "failed", "error"]),
  reason: z.string().nullable().describe("The first failed check (or the error), null when it passed or is pending."),
  checks: z.array(ZTestCheckSchema),
  transcript: z.array(ZTestTurnSchema),
  toolCalls: z.array(ZTestToolCallSchema),
  turns: z.number().int(),
  callResult: z.record(z.string(), z.unknown()).nullable().describe("callResult as the call-result webhook would carry it (same builder)."),
  durationMs: z.number().int().nullable(),
  error: z.string().nullable(),
});

export const ZTestRunSummarySchema = z.object({
  runId: z.string().describe("Format `test-run.<id>`."),
  agentId: z.string(),
  promptVersionId: z.string(),
  status: z.enum(["queued", "running", "completed", "failed"]).describe("`completed` once every case has a result (passed, failed or error)."),
  total: z.number().int(),
  passed: z.number().int(),
  failed: z.number().int().describe("Cases that failed or could not be played (error)."),
  passRate: z.number().nullable().describe("passed / total once completed, else null."),
  source: z.enum(["api", "console"]),
  createdAt: z.string(),
  startedAt: z.string().nullable(),
  completedAt: z.string().nullable(),
  error: z.string().nullable(),
});

export const ZTestRunSchema = ZTestRunSummarySchema.extend({ results: z.array(ZTestResultSchema) }).meta({
  examples: [
    {
      runId: "test-run.01jfd1a2b3c4d5e6f7g8h9j0k1",
      agentId: "agent.01jfczz8x3q4w5e6r7t8y9u0i1",
      promptVersionId: "prompt-ver.01jfczz8x3q4w5e6r7t8y9u0i2",
      status: "completed",
      total: 1,
      passed: 0,
      failed: 1,
      passRate: 0,
      source: "api",
      createdAt: "2026-11-28T09:00:00.000Z",
      startedAt: "2026-11-28T09:00:00.100Z",
      completedAt: "2026-11-28T09:00:01.900Z",
      error: null,
      results: [
        {
          testCaseId: "test-case.01jfd0f3v2m1c6qg5n2z8r4k7t",
          name: "Agrees to a Tuesday meeting",
          status: "failed",
          reason: "tool book_meeting called: tools called: end_call",
          checks: [
            { expectation: "resultType is \"Goal Completed\"", passed: true, reason: "as expected" },
            { expectation: "tool book_meeting called", passed: false, reason: "tools called: end_call" },
          ],
          transcript: [
            { speaker: "customer", text: "Hello?" },
            { speaker: "agent", text: "Hi Jordan, this is Link Booking Agent. Would you like to book a short follow-up meeting?" },
          ],
          toolCalls: [{ name: "end_call", arguments: { reason: "goal reached" }, result: { ok: true, message: "The call is being ended." } }],
          turns: 4,
          callResult: { resultType: "Goal Completed", summary: "…", extractedVariables: {}, outcomes: [], agentActions: [], humanActions: [], transcription: "…" },
          durationMs: 1800,
          error: null,
        },
      ],
    },
  ],
});

export const ZTestCaseIdSchema = idText().describe("Test case ID, format `test-case.<id>`.");
export const ZTestRunIdSchema = idText().describe("Test run ID, format `test-run.<id>`.");
export const ZPromptVersionIdSchema = idText().describe("Prompt version ID, format `prompt-ver.<id>`.");

export const ZAgentTestPathSchema = z.object({ agentId: ZAgentIdSchema });
export const testCaseExample = exampleCase;

export type TTestCaseInput = z.infer<typeof ZTestCaseInputSchema>;
export type TTestCase = z.infer<typeof ZTestCaseSchema>;
export type TTestRun = z.infer<typeof ZTestRunSchema>;
export type TTestRunSummary = z.infer<typeof ZTestRunSummarySchema>;
export type TTestResult = z.infer<typeof ZTestResultSchema>;
