import type { NumberHealthState } from "@/db/schema";

/**
 * The number-health rule (docs/numbers.md "Number health"), pure: the bench (bench/number-health.ts) runs exactly
 * these functions, so its figures are the rule's.
 *
 * 1. Expected answer rate of a call: the rate at which the organization's *other* numbers' calls to the same
 *    stratum (the contact's region and 3-hour band of local time) were answered by a person over the last
 *    `windowDays` days, shrunk towards their overall rate by `stratumWeightCalls` calls; their overall rate is itself
 *    shrunk towards the prior (`prior.answerRate`, worth `prior.weightCalls` calls), which is all there is when the
 *    other numbers have no calls yet.
 * 2. Each answerable call of the number (answered, voicemail, no answer, busy) feeds two one-sided Bernoulli CUSUMs
 *    (Page's test) of "this number answers at `ratio` × the expected rate" against "it answers at the expected rate":
 *    S ← max(0, S + log-likelihood ratio of the call). `rest` looks for a halving, `watch` for a quarter less.
 * 3. A CUSUM flags when S ≥ its threshold, its run (the calls since S was last 0) has at least `minCalls` calls, and
 *    the run's answer rate is at most `maxObservedRatio` × its expected rate (an effect-size guard: a long run of small
 *    shortfalls does not rest a number).
 * 4. healthy → resting when `rest` flags (→ watch when only `watch` does); watch → resting when `rest` flags; watch →
 *    healthy after `recovery.minCalls` calls in watch once the watch statistic is at most
 *    `recovery.maxWatchStatistic`. resting → watch when the rest is over (by time, not by this rule).
 */
export const NUMBER_HEALTH_RULE = {
  windowDays: 7,
  hourBandHours: 3,
  prior: { answerRate: 0.2, weightCalls: 50 },
  stratumWeightCalls: 20,
  expectedRateBounds: { min: 0.02, max: 0.95 },
  rest: { ratio: 0.5, threshold: 11, minCalls: 30, maxObservedRatio: 0.6 },
  watch: { ratio: 0.75, threshold: 10, minCalls: 30, maxObservedRatio: 0.85 },
  recovery: { minCalls: 50, maxWatchStatistic: 5 },
} as const;

export type NumberHealthRule = typeof NUMBER_HEALTH_RULE;
export type CusumTest = { ratio: number; threshold: number; minCalls: number; maxObservedRatio: number };

export type AnswerCounts = { calls: number; answered: number };

/** The peers' (the organization's other numbers') calls in the window: all of them, and those of the call's stratum. */
export type PeerCounts = { all: AnswerCounts; stratum: AnswerCounts };

export function expectedAnswerRate(peers: PeerCounts, rule: NumberHealthRule = NUMBER_HEALTH_RULE): number {
  const overall = (peers.all.answered + rule.prior.weightCalls * rule.prior.answerRate) / (peers.all.calls + rule.prior.weightCalls);
  const rate = (peers.stratum.answered + rule.stratumWeightCalls * overall) / (peers.stratum.calls + rule.stratumWeightCalls);
  return Math.min(rule.expectedRateBounds.max, Math.max(rule.expectedRateBounds.min, rate));
}

/** A CUSUM's statistic and its current run: the calls since the statistic was last 0 (what it is evidence of). */
export type CusumRun = { statistic: number; calls: number; answered: number; expected: number };
/** Calls since the number entered its current state (answered, and the sum of their expected rates). */
export type StateTally = { calls: number; answered: number; expected: number };
export type HealthMonitor = { rest: CusumRun; watch: CusumRun; state: StateTally };

export const EMPTY_RUN: CusumRun = { statistic: 0, calls: 0, answered: 0, expected: 0 };
export const EMPTY_MONITOR: HealthMonitor = { rest: EMPTY_RUN, watch: EMPTY_RUN, state: { calls: 0, answered: 0, expected: 0 } };

export type ObservedCall = { answered: boolean; expectedRate: number };

/** Log-likelihood ratio of one call, "answers at ratio × p" against "answers at p". */
export function callEvidence(call: ObservedCall, ratio: number): number {
  const p = call.expectedRate;
  return call.answered ? Math.log(ratio) : Math.log((1 - ratio * p) / (1 - p));
}

export function stepCusum(run: CusumRun, call: ObservedCall, ratio: number): CusumRun {
  const statistic = run.statistic + callEvidence(call, ratio);
  if (statistic <= 0) return EMPTY_RUN;
  return { statistic, calls: run.calls + 1, answered: run.answered + (call.answered ? 1 : 0), expected: run.expected + call.expectedRate };
}

export function stepMonitor(monitor: HealthMonitor, call: ObservedCall, rule: NumberHealthRule = NUMBER_HEALTH_RULE): HealthMonitor {
  return {
    rest: stepCusum(monitor.rest, call, rule.rest.ratio),
    watch: stepCusum(monitor.watch, call, rule.watch.ratio),
    state: { calls: monitor.state.calls + 1, answered: monitor.state.answered + (call.answered ? 1 : 0), expected: monitor.state.expected + call.expectedRate },
  };
}

export function cusumFlags(run: CusumRun, test: CusumTest): boolean {
  return run.statistic >= test.threshold && run.calls >= test.minCalls && run.answered <= test.maxObservedRatio * run.expected;
}

export type HealthDecision =
  | { change: false }
  | {
      change: true;
      to: NumberHealthState;
      /** `rest` / `watch`: that CUSUM flagged; `recovered`: watch → healthy. */
      because: "rest" | "watch" | "recovered";
      /** The calls the decision rests on: the flagging CUSUM's run, or the calls made under watch. */
      evidence: AnswerCounts & { expected: number };
      /** The monitor to keep after the change. */
      monitor: HealthMonitor;
    };

/** What the rule makes of a number in `health` after its monitor took the latest call (resting numbers are left alone). */
export function decideHealth(health: NumberHealthState, monitor: HealthMonitor, rule: NumberHealthRule = NUMBER_HEALTH_RULE): HealthDecision {
  if (health === "resting") return { change: false };
  if (cusumFlags(monitor.rest, rule.rest)) {
    // A rest starts from a clean slate: what the number does after it is judged on its own.
    return { change: true, to: "resting", because: "rest", evidence: monitor.rest, monitor: EMPTY_MONITOR };
  }
  if (health === "healthy" && cusumFlags(monitor.watch, rule.watch)) {
    return { change: true, to: "watch", because: "watch", evidence: monitor.watch, monitor: { ...monitor, state: EMPTY_MONITOR.state } };
  }
  if (health === "watch" && monitor.state.calls >= rule.recovery.minCalls && monitor.watch.statistic <= rule.recovery.maxWatchStatistic) {
    return { change: true, to: "healthy", because: "recovered", evidence: monitor.state, monitor: { ...monitor, state: EMPTY_MONITOR.state } };
  }
  return { change: false };
}

export function formatPercent(rate: number): string {
  return `${Math.round(rate * 100)} %`;
}

/**
 * The reason shown with the state, in words: what the number did against what its peers' calls to the same places
 * and hours predict (or the prior, while the other numbers have too few calls to say).
 */
export function describeHealthEvidence(params: {
  evidence: AnswerCounts & { expected: number };
  peerCalls: number;
  rule?: NumberHealthRule;
}): string {
  const rule = params.rule ?? NUMBER_HEALTH_RULE;
  const { calls, answered, expected } = params.evidence;
  const observed = calls > 0 ? answered / calls : 0;
  const expectedRate = calls > 0 ? expected / calls : 0;
  const against =
    params.peerCalls >= rule.prior.weightCalls
      ? `against ${formatPercent(expectedRate)} for your other numbers to the same places and hours`
      : `against the ${formatPercent(expectedRate)} expected while your other numbers have made too few calls to compare with`;
  return `answered ${answered} of ${calls} calls (${formatPercent(observed)}) ${against}`;
}
