import type { Db } from "@/db";
import { agentTestCases, type TestContact, type TestExpectations } from "@/db/schema";
import { newId } from "@/server/ids";
import { SIMULATOR_CRM_CONTACT_DOMAIN } from "@/server/services/calendar/simulator-fixtures";

type CaseTemplate = { name: string; persona: string; contact?: Partial<TestContact>; inputVariables?: Record<string, string>; expectations: TestExpectations };

/** Agents with a calendar (the demo's link, CRM and concierge agents): the meeting case books through the agent's mode. */
const BOOKING_AGENT_CASES: CaseTemplate[] = [
  {
    name: "Agrees to a Tuesday meeting",
    persona: "Operations manager at a mid-size company, friendly and direct. Agrees to a meeting on Tuesday morning.\ninterest level: high\nbudget: 5000",
    contact: { name: "Jordan Lee", email: `jordan.lee@${SIMULATOR_CRM_CONTACT_DOMAIN}` },
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
  },
  {
    name: "Asks to stop calling",
    persona: "Annoyed by sales calls. Asks to stop calling and to be removed from the list.",
    inputVariables: { company_name: "Contoso" },
    expectations: { resultType: "Opted Out", toolsCalled: ["opt_out"], toolsNotCalled: ["book_meeting"], meetingBooked: false },
  },
  {
    name: "Busy, call next week",
    persona: "In the middle of something: busy, asks to be called back next week.",
    inputVariables: { company_name: "Fabrikam" },
    expectations: { resultType: "Goal Not Completed", toolsCalled: ["end_call"], toolsNotCalled: ["book_meeting", "opt_out"], maxTurns: 6 },
  },
  {
    name: "Not interested in a meeting",
    persona: "Polite, answers questions, but does not want a meeting.\ninterest level: low",
    inputVariables: { company_name: "Tailspin" },
    expectations: {
      resultType: "Goal Not Completed",
      extractedVariables: [{ slug: "interest_level", match: { type: "judge", rubric: 'The contact shows little interest ("low").' } }],
      toolsNotCalled: ["book_meeting", "opt_out"],
      meetingBooked: false,
    },
  },
];

/** Agents without a calendar: the agent must not try to book; a colleague follows up. */
const NO_CALENDAR_CASES: CaseTemplate[] = [
  {
    name: "Agrees to meet (no calendar: a colleague follows up)",
    persona: "Interested and agrees to a meeting on Thursday afternoon.",
    expectations: { resultType: "Goal Completed", toolsCalled: ["end_call"], toolsNotCalled: ["book_meeting"], meetingBooked: false },
  },
  BOOKING_AGENT_CASES[1]!,
  BOOKING_AGENT_CASES[2]!,
];

/**
 * The demo's test cases (docs/agent-testing.md): four per agent with a calendar, three per agent without one, all
 * passing on the embedded default (the OpenAI simulator's stand-ins and the rule-based analyser).
 */
export async function seedAgentTestCases(db: Db, params: { organizationId: string; agents: Array<{ agentId: string; timezone: string; hasCalendar: boolean }>; now: Date }) {
  const rows = params.agents.flatMap((agent) =>
    (agent.hasCalendar ? BOOKING_AGENT_CASES : NO_CALENDAR_CASES).map((template, index) => ({
      id: newId("test-case"),
      organizationId: params.organizationId,
      agentId: agent.agentId,
      name: template.name,
      persona: template.persona,
      contact: { name: template.contact?.name ?? "Test Caller", email: template.contact?.email ?? null, timezone: template.contact?.timezone ?? agent.timezone },
      inputVariables: template.inputVariables ?? {},
      expectations: template.expectations,
      createdAt: new Date(params.now.getTime() + index),
      updatedAt: new Date(params.now.getTime() + index),
    })),
  );
  for (let offset = 0; offset < rows.length; offset += 500) await db.insert(agentTestCases).values(rows.slice(offset, offset + 500));
}
