import { describe, expect, it } from "vitest";
import { analyzeWithRules, parseTranscript } from "@/server/analysis/rule-based";
import type { AnalysisInput } from "@/server/analysis/types";
import { formatDateTimeValue, parseSpokenDateTime } from "@/server/analysis/values";
import { planSimulatedCall, renderSimulatedTranscript } from "@/server/voice/simulator/script";
import { DateTime } from "luxon";
import { extractionDefinitions, outcomeDefinitions, placeCallRequest } from "./fixtures";

const startedAt = new Date("2026-03-02T15:00:00Z"); // Monday 10:00 in New York

function inputFor(digit: number, overrides: Partial<AnalysisInput> = {}): AnalysisInput {
  const request = placeCallRequest(`+1202555010${digit}`);
  const plan = planSimulatedCall(request);
  return {
    callId: request.callId,
    disposition: plan.outcome.disposition,
    transcript: renderSimulatedTranscript(request, plan, startedAt, null),
    durationSeconds: plan.durationSeconds,
    endedAt: new Date(startedAt.getTime() + plan.durationSeconds * 1000),
    agent: { name: "Ava" },
    contact: { name: "Jane Doe", timezone: "America/New_York", variables: request.contact.variables },
    extractionDefinitions,
    outcomeDefinitions,
    meeting: null,
    errorMessage: plan.outcome.disposition === "failed" ? "SIP 503" : null,
    ...overrides,
  };
}

describe("rule-based analyser", () => {
  it("reaches the result of the outcome table for every simulated digit", () => {
    const expected = ["Goal Completed", "Goal Not Completed", "Voicemail", "Busy", "No Conversation", "Opted Out", "Invalid Phone Number", "Failed", "Goal Completed", "Goal Not Completed"];
    for (let digit = 0; digit <= 9; digit += 1) {
      const result = analyzeWithRules(inputFor(digit));
      expect(result.resultType, `digit ${digit}`).toBe(expected[digit]);
      expect(Object.keys(result.extractedVariables).sort()).toEqual(extractionDefinitions.map((definition) => definition.slug).sort());
      expect(result.summary.length).toBeGreaterThan(10);
      for (const outcome of result.outcomes) {
        expect(outcomeDefinitions.map((definition) => definition.name)).toContain(outcome.name);
        expect(outcome.reasoning.length).toBeGreaterThan(5);
      }
      for (const action of [...result.agentActions, ...result.humanActions]) {
        expect(action).toMatchObject({ status: "completed", completedAt: expect.any(String), metadata: expect.any(Object) });
        expect(action.actionKey).toMatch(/^[a-z_]+$/);
      }
    }
  });

  it("extracts values consistent with each definition's type", () => {
    const goal = analyzeWithRules(inputFor(8));
    expect(goal.extractedVariables.interest_level).toBe("high");
    expect(goal.extractedVariables.budget).toEqual(expect.any(Number));
    expect(goal.extractedVariables.decision_maker).toBe(true);
    expect(goal.extractedVariables.call_sentiment).toBe("positive");
    // The contact proposed a time three days later, 14:00–16:30 New York time, written in the configured pattern.
    expect(goal.extractedVariables.callback_time).toMatch(/^2026-03-05 1[4-6]:(00|30):00$/);
    const notCompleted = analyzeWithRules(inputFor(1));
    expect(notCompleted.extractedVariables.interest_level).toBe("medium");
    expect(notCompleted.extractedVariables.decision_maker).toBe(false);
    expect(notCompleted.humanActions.map((action) => action.actionKey)).toContain("request_callback");
    // Nothing said: every key present, null.
    expect(Object.values(analyzeWithRules(inputFor(3)).extractedVariables).every((value) => value === null)).toBe(true);
  });

  it("writes DATE/TIME values in UTC when the definition asks for it", () => {
    const utcDefinitions = extractionDefinitions.map((definition) =>
      definition.type === "DATE/TIME" ? { ...definition, formatDatetimeInUtc: true, datetimeFormat: "yyyy-MM-dd'T'HH:mm" } : definition,
    );
    const local = analyzeWithRules(inputFor(8)).extractedVariables.callback_time as string;
    const utc = analyzeWithRules(inputFor(8, { extractionDefinitions: utcDefinitions })).extractedVariables.callback_time as string;
    const localInstant = DateTime.fromFormat(local, "yyyy-MM-dd HH:mm:ss", { zone: "America/New_York" });
    const utcInstant = DateTime.fromFormat(utc, "yyyy-MM-dd'T'HH:mm", { zone: "UTC" });
    expect(utcInstant.toMillis()).toBe(localInstant.toMillis());
    expect(utc).not.toBe(local.slice(0, 16).replace(" ", "T"));
  });

  it("names outcomes only from the agent's definitions, and none when nothing fits", () => {
    expect(analyzeWithRules(inputFor(0, { meeting: { startTime: "2026-03-05T15:00:00Z", endTime: "2026-03-05T15:30:00Z", hostEmail: "host@example.com", meetingLink: "https://meet.example.com/x" } })).outcomes[0]?.name).toBe("Meeting booked");
    expect(analyzeWithRules(inputFor(1)).outcomes[0]?.name).toBe("Interested");
    expect(analyzeWithRules(inputFor(5)).outcomes[0]?.name).toBe("Not interested");
    expect(analyzeWithRules(inputFor(3)).outcomes).toEqual([]);
    expect(analyzeWithRules(inputFor(1, { outcomeDefinitions: [] })).outcomes).toEqual([]);
  });

  it("reads spoken dates relative to the call", () => {
    const reference = new Date("2026-03-02T15:00:00Z");
    expect(parseSpokenDateTime("Thursday, March 5 at 2:30 PM works", reference, "America/New_York")?.toISO()).toBe("2026-03-05T14:30:00.000-05:00");
    expect(parseSpokenDateTime("tomorrow at 9am", reference, "Europe/Berlin")?.toISO()).toBe("2026-03-03T09:00:00.000+01:00");
    expect(parseSpokenDateTime("January 4 at 10:00", reference, "UTC")?.year).toBe(2027);
    expect(parseSpokenDateTime("no idea", reference, "UTC")).toBeNull();
    expect(formatDateTimeValue(DateTime.fromISO("2026-03-05T14:30:00-05:00"), { datetimeFormat: "YYYY-MM-DD HH:mm", formatDatetimeInUtc: true }, "America/New_York")).toBe("2026-03-05 19:30");
  });

  it("parses labelled transcripts", () => {
    expect(parseTranscript("Agent: Hi\nUser: Hello there\ncontinued\nAssistant: Bye")).toEqual([
      { speaker: "agent", text: "Hi" },
      { speaker: "customer", text: "Hello there continued" },
      { speaker: "agent", text: "Bye" },
    ]);
  });
});
