import { describe, expect, it } from "vitest";
import type { AgentStep } from "@/db/schema";
import {
  computeStepDueAt,
  drawDelaySeconds,
  firstInstantInWindow,
  planFirstCall,
} from "@/server/services/scheduling/compute-step-due-at";

function step(overrides: Partial<AgentStep> & { window?: [number, number]; dayOffset?: number; source?: "contact" | "agent" } = {}): AgentStep {
  const [startTime, endTime] = overrides.window ?? [540, 1020];
  return {
    stepType: overrides.stepType ?? "CALL",
    delaySeconds: overrides.delaySeconds ?? 0,
    delaySecondsMax: overrides.delaySecondsMax ?? null,
    executionWindowConfig: {
      dayOffset: overrides.dayOffset ?? 0,
      timeWindow: { startTime, endTime },
      timezoneSource: overrides.source ?? "contact",
    },
  };
}

const NY = "America/New_York";
const LA = "America/Los_Angeles";

function due(params: Partial<Omit<Parameters<typeof computeStepDueAt>[0], "now">> & { now: string }) {
  return computeStepDueAt({
    step: params.step ?? step(),
    previousEndedAt: params.previousEndedAt ?? null,
    contactTimezone: params.contactTimezone ?? NY,
    agentTimezone: params.agentTimezone ?? LA,
    bypassCallWindows: params.bypassCallWindows ?? false,
    now: new Date(params.now),
    random: params.random ?? (() => 0),
    scheduledAt: params.scheduledAt ?? null,
  }).toISOString();
}

describe("computeStepDueAt: windows", () => {
  it("is now when now is inside the window", () => {
    // 10:00 EST
    expect(due({ now: "2026-01-15T15:00:00.000Z" })).toBe("2026-01-15T15:00:00.000Z");
  });

  it("moves to today's opening before the window and tomorrow's after it", () => {
    // 07:00 EST → 09:00 EST
    expect(due({ now: "2026-01-15T12:00:00.000Z" })).toBe("2026-01-15T14:00:00.000Z");
    // 18:00 EST → next day 09:00 EST
    expect(due({ now: "2026-01-15T23:00:00.000Z" })).toBe("2026-01-16T14:00:00.000Z");
  });

  it("treats endTime as exclusive", () => {
    // exactly 17:00 EST
    expect(due({ now: "2026-01-15T22:00:00.000Z" })).toBe("2026-01-16T14:00:00.000Z");
    // 16:59:59 EST
    expect(due({ now: "2026-01-15T21:59:59.000Z" })).toBe("2026-01-15T21:59:59.000Z");
  });

  it("reads the window in the contact's zone or the agent's, per timezoneSource", () => {
    const now = "2026-01-15T15:00:00.000Z"; // 10:00 New York, 07:00 Los Angeles
    expect(due({ now, step: step({ source: "contact" }) })).toBe("2026-01-15T15:00:00.000Z");
    expect(due({ now, step: step({ source: "agent" }) })).toBe("2026-01-15T17:00:00.000Z");
  });

  it("keeps 09:00 local across the spring-forward change (New York, 8 March 2026)", () => {
    // Saturday 18:00 EST (UTC-5) → Sunday 09:00 EDT (UTC-4) = 13:00Z, not 14:00Z
    expect(due({ now: "2026-03-07T23:00:00.000Z" })).toBe("2026-03-08T13:00:00.000Z");
  });

  it("keeps 09:00 local across the fall-back change (New York, 1 November 2026)", () => {
    // Saturday 18:00 EDT → Sunday 09:00 EST = 14:00Z
    expect(due({ now: "2026-10-31T22:00:00.000Z" })).toBe("2026-11-01T14:00:00.000Z");
  });

  it("handles the southern hemisphere's change (Sydney, DST ends 5 April 2026)", () => {
    // Saturday 4 April 20:00 AEDT (UTC+11) = 09:00Z → Sunday 09:00 AEST (UTC+10) = 23:00Z Saturday
    expect(due({ now: "2026-04-04T09:00:00.000Z", contactTimezone: "Australia/Sydney" })).toBe("2026-04-04T23:00:00.000Z");
  });

  it("moves a window start inside the spring-forward gap to the first instant after it", () => {
    // 02:30 does not exist in New York on 8 March 2026; 03:30 EDT = 07:30Z
    const gap = step({ window: [150, 600] });
    expect(due({ now: "2026-03-08T05:00:00.000Z", step: gap })).toBe("2026-03-08T07:30:00.000Z");
  });

  it("supports overnight windows", () => {
    const overnight = step({ window: [1320, 120] }); // 22:00–02:00
    // 01:00 EST: still inside yesterday's window
    expect(due({ now: "2026-01-15T06:00:00.000Z", step: overnight })).toBe("2026-01-15T06:00:00.000Z");
    // 10:00 EST: opens at 22:00 EST
    expect(due({ now: "2026-01-15T15:00:00.000Z", step: overnight })).toBe("2026-01-16T03:00:00.000Z");
  });

  it("treats 0–1440 (and start = end) as always open, and bypass ignores the window", () => {
    const midnight = "2026-01-15T08:00:00.000Z"; // 03:00 EST
    expect(due({ now: midnight, step: step({ window: [0, 1440] }) })).toBe(midnight);
    expect(due({ now: midnight, step: step({ window: [600, 600] }) })).toBe(midnight);
    expect(due({ now: midnight, bypassCallWindows: true })).toBe(midnight);
  });
});

describe("computeStepDueAt: delays, day offsets, explicit times", () => {
  it("adds the delay to the previous step's end, never returning a past instant", () => {
    const daily = step({ window: [0, 1440], delaySeconds: 3600 });
    expect(
      due({ now: "2026-01-15T15:00:00.000Z", step: daily, previousEndedAt: new Date("2026-01-15T14:30:00.000Z") }),
    ).toBe("2026-01-15T15:30:00.000Z");
    expect(
      due({ now: "2026-01-15T15:00:00.000Z", step: daily, previousEndedAt: new Date("2026-01-10T00:00:00.000Z") }),
    ).toBe("2026-01-15T15:00:00.000Z");
  });

  it("draws jitter between delaySeconds and delaySecondsMax", () => {
    const jittered = step({ delaySeconds: 60, delaySecondsMax: 120 });
    expect(drawDelaySeconds(jittered, () => 0)).toBe(60);
    expect(drawDelaySeconds(jittered, () => 0.5)).toBe(90);
    expect(drawDelaySeconds(jittered, () => 0.999999)).toBe(120);
    expect(drawDelaySeconds(step({ delaySeconds: 60, delaySecondsMax: 30 }), () => 0.9)).toBe(60);
    expect(
      due({ now: "2026-01-15T15:00:00.000Z", step: jittered, bypassCallWindows: true, random: () => 0.5 }),
    ).toBe("2026-01-15T15:01:30.000Z");
  });

  it("applies dayOffset as local days after the previous step, then the window", () => {
    const nextDay = step({ dayOffset: 1 });
    // Monday 12 Jan 2026, 15:00 EST → Tuesday 09:00 EST
    const ended = new Date("2026-01-12T20:00:00.000Z");
    expect(due({ now: "2026-01-12T20:00:00.000Z", step: nextDay, previousEndedAt: ended })).toBe("2026-01-13T14:00:00.000Z");
    // with bypass: local midnight of the next day
    expect(
      due({ now: "2026-01-12T20:00:00.000Z", step: nextDay, previousEndedAt: ended, bypassCallWindows: true }),
    ).toBe("2026-01-13T05:00:00.000Z");
  });

  it("uses an explicit scheduledAt instead of the delay, still inside the window unless bypassed", () => {
    const delayed = step({ delaySeconds: 86_400 });
    const inWindow = new Date("2026-01-20T16:00:00.000Z"); // 11:00 EST
    expect(due({ now: "2026-01-15T15:00:00.000Z", step: delayed, scheduledAt: inWindow })).toBe(inWindow.toISOString());
    const night = new Date("2026-01-20T03:00:00.000Z"); // 22:00 EST on the 19th
    expect(due({ now: "2026-01-15T15:00:00.000Z", step: delayed, scheduledAt: night })).toBe("2026-01-20T14:00:00.000Z");
    expect(
      due({ now: "2026-01-15T15:00:00.000Z", step: delayed, scheduledAt: night, bypassCallWindows: true }),
    ).toBe(night.toISOString());
  });
});

describe("planFirstCall", () => {
  it("finds the first CALL step and chains the steps before it", () => {
    const plan = planFirstCall({
      steps: [step({ stepType: "EMAIL", window: [0, 1440] }), step({ delaySeconds: 600, window: [0, 1440] })],
      contactTimezone: NY,
      agentTimezone: NY,
      bypassCallWindows: false,
      scheduledAt: null,
      now: new Date("2026-01-15T15:00:00.000Z"),
    });
    expect(plan).toEqual({ stepNumber: 2, dueAt: new Date("2026-01-15T15:10:00.000Z") });
  });

  it("returns null without a CALL step", () => {
    expect(
      planFirstCall({
        steps: [step({ stepType: "EMAIL" })],
        contactTimezone: NY,
        agentTimezone: NY,
        bypassCallWindows: false,
        scheduledAt: null,
        now: new Date(),
      }),
    ).toBeNull();
  });
});

describe("firstInstantInWindow", () => {
  it("walks forward to the next opening from any instant of a day", () => {
    const window = { startTime: 540, endTime: 1020 };
    for (let hour = 0; hour < 24; hour += 1) {
      const instant = Date.UTC(2026, 5, 10, hour, 30); // June: EDT, UTC-4
      const result = firstInstantInWindow(instant, window, NY);
      const localHour = (((hour - 4) % 24) + 24) % 24;
      if (localHour >= 9 && localHour < 17) expect(result).toBe(instant);
      else {
        expect(result).toBeGreaterThan(instant);
        expect(new Date(result).getUTCHours()).toBe(13);
        expect(new Date(result).getUTCMinutes()).toBe(0);
        expect(result - instant).toBeLessThanOrEqual(24 * 3600 * 1000);
      }
    }
  });
});
