import type { TestCheck, TestExpectations, TestToolCall, TestValueMatcher } from "@/db/schema";
import type { TCallEventPayload } from "@/server/schemas/call";

export type ExpectationInput = {
  expectations: TestExpectations;
  payload: TCallEventPayload;
  toolCalls: TestToolCall[];
  turns: number;
  endedWithinLimit: boolean;
  meetingBooked: boolean;
  judge: (params: { slug: string; value: unknown; rubric: string }) => Promise<{ passed: boolean; reasoning: string }>;
};

const show = (value: unknown) => (value === undefined ? "absent" : JSON.stringify(value));

/** How many checks a set of expectations makes (a case must make at least one). */
export function countExpectations(expectations: TestExpectations): number {
  return (
    (expectations.resultType !== undefined ? 1 : 0) +
    (expectations.outcomes?.length ?? 0) +
    (expectations.extractedVariables?.length ?? 0) +
    (expectations.toolsCalled?.length ?? 0) +
    (expectations.toolsNotCalled?.length ?? 0) +
    (expectations.meetingBooked !== undefined ? 1 : 0) +
    (expectations.maxTurns !== undefined ? 1 : 0)
  );
}

function describeMatcher(match: TestValueMatcher): string {
  switch (match.type) {
    case "exact":
      return `is ${show(match.value)}`;
    case "oneOf":
      return `is one of ${match.values.map((value) => show(value)).join(", ")}`;
    case "regex":
      return `matches /${match.pattern}/${match.flags ?? ""}`;
    case "judge":
      return `satisfies "${match.rubric}"`;
  }
}

function sameValue(actual: unknown, expected: unknown): boolean {
  if (typeof actual === "string" && typeof expected === "string") return actual.trim().toLowerCase() === expected.trim().toLowerCase();
  return actual === expected || (actual !== null && expected !== null && String(actual) === String(expected));
}

/**
 * Each expectation as one check with its reason, read from the call-result payload the webhook would carry (result
 * type, outcomes, extracted variables), the tool calls and the turns. Text comparisons ignore case and surrounding space.
 */
export async function checkExpectations(input: ExpectationInput): Promise<TestCheck[]> {
  const { expectations, payload } = input;
  const result = payload.callResult;
  const checks: TestCheck[] = [];
  if (expectations.resultType !== undefined) {
    const passed = result.resultType === expectations.resultType;
    checks.push({ expectation: `resultType is "${expectations.resultType}"`, passed, reason: passed ? "as expected" : `resultType was "${result.resultType}"` });
  }
  const outcomeNames = result.outcomes.map((outcome) => outcome.name);
  for (const name of expectations.outcomes ?? []) {
    const passed = outcomeNames.some((actual) => actual.toLowerCase() === name.toLowerCase());
    checks.push({ expectation: `outcome "${name}"`, passed, reason: passed ? "as expected" : `outcomes were ${outcomeNames.length ? outcomeNames.map((n) => `"${n}"`).join(", ") : "none"}` });
  }
  for (const { slug, match } of expectations.extractedVariables ?? []) {
    const expectation = `extractedVariables.${slug} ${describeMatcher(match)}`;
    const value = (result.extractedVariables as Record<string, unknown>)[slug];
    if (!(slug in result.extractedVariables)) {
      checks.push({ expectation, passed: false, reason: `the agent has no extracted variable "${slug}"` });
      continue;
    }
    let passed: boolean;
    let reason = `was ${show(value)}`;
    switch (match.type) {
      case "exact":
        passed = sameValue(value, match.value);
        break;
      case "oneOf":
        passed = match.values.some((candidate) => sameValue(value, candidate));
        break;
      case "regex":
        passed = value !== null && value !== undefined && new RegExp(match.pattern, match.flags).test(String(value));
        break;
      case "judge": {
        const judged = await input.judge({ slug, value, rubric: match.rubric });
        passed = judged.passed;
        reason = `${reason}; judge: ${judged.reasoning}`;
        break;
      }
    }
    checks.push({ expectation, passed, reason: passed && match.type !== "judge" ? `as expected (${show(value)})` : reason });
  }
  const called = [...new Set(input.toolCalls.map((call) => call.name))];
  const calledText = called.length ? called.join(", ") : "none";
  for (const tool of expectations.toolsCalled ?? []) {
    const passed = called.includes(tool);
    checks.push({ expectation: `tool ${tool} called`, passed, reason: passed ? "as expected" : `tools called: ${calledText}` });
  }
  for (const tool of expectations.toolsNotCalled ?? []) {
    const passed = !called.includes(tool);
    checks.push({ expectation: `tool ${tool} not called`, passed, reason: passed ? "as expected" : `${tool} was called` });
  }
  if (expectations.meetingBooked !== undefined) {
    const passed = input.meetingBooked === expectations.meetingBooked;
    checks.push({
      expectation: expectations.meetingBooked ? "meeting booked" : "no meeting booked",
      passed,
      reason: passed ? "as expected" : input.meetingBooked ? "a meeting was booked" : "no meeting was booked",
    });
  }
  if (expectations.maxTurns !== undefined) {
    const passed = input.endedWithinLimit && input.turns <= expectations.maxTurns;
    checks.push({
      expectation: `ends within ${expectations.maxTurns} turns`,
      passed,
      reason: passed ? `ended after ${input.turns} turns` : input.endedWithinLimit ? `took ${input.turns} turns` : `had not ended after ${input.turns} turns`,
    });
  }
  return checks;
}
