import { describe, expect, it } from "vitest";
import { callStratum } from "@/server/services/numbers/health/call-stratum";
import {
  EMPTY_MONITOR,
  NUMBER_HEALTH_RULE,
  callEvidence,
  cusumFlags,
  decideHealth,
  describeHealthEvidence,
  expectedAnswerRate,
  stepMonitor,
  type HealthMonitor,
} from "@/server/services/numbers/health/health-rule";
import { attestationOf } from "@/server/voice/twilio-realtime/call-state";

/** Feeds calls to a monitor with the decision after each one, as the app does; returns the first change and when. */
function run(calls: boolean[], options: { expectedRate: number; health?: "healthy" | "watch"; monitor?: HealthMonitor }) {
  let monitor = options.monitor ?? EMPTY_MONITOR;
  const health = options.health ?? "healthy";
  for (const [index, answered] of calls.entries()) {
    monitor = stepMonitor(monitor, { answered, expectedRate: options.expectedRate });
    const decision = decideHealth(health, monitor);
    if (decision.change) return { at: index + 1, decision, monitor };
  }
  return { at: null, decision: null, monitor };
}

/** `answered` of every `every` calls answered, spread evenly (deterministic). */
function pattern(total: number, answeredPerTwenty: number): boolean[] {
  return Array.from({ length: total }, (_, index) => index % 20 < answeredPerTwenty);
}

describe("number health rule: expected answer rate", () => {
  it("is the peers' stratum rate shrunk towards their overall rate, itself shrunk towards the prior", () => {
    const { prior, stratumWeightCalls } = NUMBER_HEALTH_RULE;
    // No peers at all: the prior.
    expect(expectedAnswerRate({ all: { calls: 0, answered: 0 }, stratum: { calls: 0, answered: 0 } })).toBeCloseTo(prior.answerRate, 10);
    // Many peer calls, none in this stratum: their overall rate (almost: the prior weighs 50 calls against 10,000).
    const overall = (4000 + prior.weightCalls * prior.answerRate) / (10_000 + prior.weightCalls);
    expect(expectedAnswerRate({ all: { calls: 10_000, answered: 4000 }, stratum: { calls: 0, answered: 0 } })).toBeCloseTo(overall, 10);
    // A stratum with its own data pulls towards its own rate, by its calls against 20.
    expect(expectedAnswerRate({ all: { calls: 10_000, answered: 4000 }, stratum: { calls: 80, answered: 16 } })).toBeCloseTo((16 + stratumWeightCalls * overall) / (80 + stratumWeightCalls), 10);
    // Clamped, so one call's evidence stays finite.
    expect(expectedAnswerRate({ all: { calls: 10_000, answered: 10_000 }, stratum: { calls: 10_000, answered: 10_000 } })).toBe(NUMBER_HEALTH_RULE.expectedRateBounds.max);
    expect(expectedAnswerRate({ all: { calls: 10_000, answered: 0 }, stratum: { calls: 10_000, answered: 0 } })).toBe(NUMBER_HEALTH_RULE.expectedRateBounds.min);
  });
});

describe("number health rule: the CUSUMs", () => {
  it("weighs a call by its log-likelihood ratio: an answer against, a miss for the drop", () => {
    expect(callEvidence({ answered: true, expectedRate: 0.4 }, 0.5)).toBeCloseTo(Math.log(0.5), 10);
    expect(callEvidence({ answered: false, expectedRate: 0.4 }, 0.5)).toBeCloseTo(Math.log(0.8 / 0.6), 10);
  });

  it("keeps a number that answers like its peers healthy over a month of calls", () => {
    // 40 % answered, evenly: the statistic never builds up.
    expect(run(pattern(3000, 8), { expectedRate: 0.4 }).at).toBeNull();
  });

  it("rests a number whose answer rate drops from 40 % to 5 %, straight from healthy, within 60 calls, on a run's evidence", () => {
    const result = run(pattern(200, 1), { expectedRate: 0.4 });
    expect(result.decision).toMatchObject({ change: true, to: "resting", because: "rest" });
    expect(result.at).toBeGreaterThanOrEqual(NUMBER_HEALTH_RULE.rest.minCalls);
    expect(result.at).toBeLessThanOrEqual(60);
    const decision = result.decision!;
    if (!decision.change) throw new Error("no change");
    // The run: the calls since the statistic was last 0 (here, since the first call, which was answered).
    expect(decision.evidence.calls).toBe(result.at! - 1);
    expect(decision.evidence.answered).toBeLessThanOrEqual(3);
    // The rest starts from a clean slate.
    expect(decision.monitor).toEqual(EMPTY_MONITOR);
  });

  it("puts a moderate drop (40 % → 30 %) under watch, not at rest: the rest's effect-size guard", () => {
    const result = run(pattern(3000, 6), { expectedRate: 0.4 });
    expect(result.decision).toMatchObject({ change: true, to: "watch", because: "watch" });
    // Whatever the statistic, 30 % against 40 % (0.75) is above the rest's guard (0.6 × expected).
    let monitor = EMPTY_MONITOR;
    for (const answered of pattern(3000, 6)) monitor = stepMonitor(monitor, { answered, expectedRate: 0.4 });
    expect(decideHealth("watch", monitor)).toEqual({ change: false });
  });

  it("needs the minimum sample and the guard as well as the threshold", () => {
    const test = NUMBER_HEALTH_RULE.rest;
    expect(cusumFlags({ statistic: test.threshold, calls: test.minCalls, answered: 0, expected: 12 }, test)).toBe(true);
    expect(cusumFlags({ statistic: test.threshold - 0.01, calls: test.minCalls, answered: 0, expected: 12 }, test)).toBe(false);
    expect(cusumFlags({ statistic: test.threshold, calls: test.minCalls - 1, answered: 0, expected: 12 }, test)).toBe(false);
    // 8 answered where 12 were expected: 0.67 of expected, above the 0.6 guard.
    expect(cusumFlags({ statistic: test.threshold, calls: test.minCalls, answered: 8, expected: 12 }, test)).toBe(false);
  });

  it("brings a watched number back to healthy after 50 calls once it answers like its peers", () => {
    const result = run(pattern(200, 8), { expectedRate: 0.4, health: "watch" });
    expect(result.decision).toMatchObject({ change: true, to: "healthy", because: "recovered" });
    expect(result.at).toBe(NUMBER_HEALTH_RULE.recovery.minCalls);
    // Still bad under watch: rested again, never healthy.
    expect(run(pattern(200, 1), { expectedRate: 0.4, health: "watch" }).decision).toMatchObject({ to: "resting" });
  });

  it("leaves a resting number alone (its rest ends by time)", () => {
    let monitor = EMPTY_MONITOR;
    for (const answered of pattern(200, 0)) monitor = stepMonitor(monitor, { answered, expectedRate: 0.4 });
    expect(decideHealth("resting", monitor)).toEqual({ change: false });
  });
});

describe("number health rule: the reason in words", () => {
  it("says what the number did against its peers, or against the prior when they have too few calls", () => {
    expect(describeHealthEvidence({ evidence: { calls: 60, answered: 2, expected: 22.8 }, peerCalls: 500 })).toBe(
      "answered 2 of 60 calls (3 %) against 38 % for your other numbers to the same places and hours",
    );
    expect(describeHealthEvidence({ evidence: { calls: 60, answered: 0, expected: 12 }, peerCalls: 3 })).toBe(
      "answered 0 of 60 calls (0 %) against the 20 % expected while your other numbers have made too few calls to compare with",
    );
  });
});

describe("number health: strata and attestation", () => {
  it("puts a call in the contact's region and 3-hour band of local time", () => {
    // 15:00 UTC in March = 10:00 in New York (EST): band 3 (9:00–11:59).
    expect(callStratum({ contactPhoneNumber: "+12125550101", timezone: "America/New_York", at: new Date("2026-03-02T15:00:00Z") })).toBe("US-NY|3");
    // 415 = California; 15:00 UTC = 7:00 in Los Angeles: band 2.
    expect(callStratum({ contactPhoneNumber: "+14155550101", timezone: "America/Los_Angeles", at: new Date("2026-03-02T15:00:00Z") })).toBe("US-CA|2");
    // Outside North America: the country; an unknown zone falls back to UTC.
    expect(callStratum({ contactPhoneNumber: "+442071838750", timezone: "Not/AZone", at: new Date("2026-03-02T15:00:00Z") })).toBe("GB|5");
  });

  it("reads Twilio's StirStatus as A, B or C", () => {
    expect(attestationOf("A")).toBe("A");
    expect(attestationOf("b")).toBe("B");
    expect(attestationOf("TN-Validation-Passed-C")).toBe("C");
    expect(attestationOf("TN-Validation-Failed")).toBeNull();
    expect(attestationOf(undefined)).toBeNull();
    expect(attestationOf("")).toBeNull();
  });
});
