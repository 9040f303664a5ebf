/**
 * Number health (docs/numbers.md "Number health"): a Monte Carlo of the rule in
 * server/services/numbers/health/health-rule.ts — the same functions the app runs after each call.
 *
 * The simulated organization: 5 numbers, each placing 100 calls a day (the default daily cap) for 30 days, to
 * contacts in 4 regions whose people answer at 32 %, 38 %, 42 % and 48 % (×1.05, ×0.95, ×0.90, ×1.10 by 3-hour band
 * of local time; about 40 % overall). Each number calls its "home" region for 60 % of its calls and the four regions
 * evenly for the rest, so the numbers' raw answer rates differ by where they call — what the stratification is for.
 * Peers' counts are kept per UTC day over the rule's 7-day window, as number_daily_stats keeps them. A resting number
 * places no calls until its rest (72 h) is over, then comes back under watch.
 *
 * Prints, per scenario: how many numbers the rule rested and watched, and for a number whose answer rate drops to
 * 5 %, 15 % or 25 % (from 40 %) on day 8, the calls from the drop until it was watched and rested.
 * Goal: false rests on healthy numbers ≤ 1 % (per number and 30-day month at 100 calls a day).
 *
 * Run: npm run bench:number-health   (BENCH_TRIALS=1000 organizations per scenario, BENCH_SEED=1; to try other
 * parameters, BENCH_RULE='{"rest":{"threshold":10}}' is merged into the rule)
 */
import { EMPTY_MONITOR, NUMBER_HEALTH_RULE, decideHealth, expectedAnswerRate, stepMonitor, type HealthMonitor, type NumberHealthRule } from "@/server/services/numbers/health/health-rule";
import type { NumberHealthState } from "@/db/schema";
import { seededRandom } from "@/server/voice/simulator/wav";

const TRIALS = Number(process.env.BENCH_TRIALS ?? 1000);
const SEED = Number(process.env.BENCH_SEED ?? 1);
const NUMBERS = 5;
const CALLS_PER_DAY = 100;
const DAYS = 30;
const DROP_DAY = 7; // 0-based: the drop starts on the 8th day, after a full window of history
const REST_DAYS = 3; // NUMBER_REST_HOURS default, 72 h
const REGION_RATES = [0.32, 0.38, 0.42, 0.48];
const BAND_FACTORS = [1.05, 0.95, 0.9, 1.1];
const STRATA = REGION_RATES.length * BAND_FACTORS.length;
const HOME_SHARE = 0.6;
const FALSE_REST_GOAL = 0.01;

function mergeRule(base: NumberHealthRule, overrides: Record<string, unknown>): NumberHealthRule {
  const merged: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(overrides)) {
    const current = merged[key];
    merged[key] = value && typeof value === "object" && current && typeof current === "object" ? { ...current, ...value } : value;
  }
  return merged as NumberHealthRule;
}
const RULE = process.env.BENCH_RULE ? mergeRule(NUMBER_HEALTH_RULE, JSON.parse(process.env.BENCH_RULE) as Record<string, unknown>) : NUMBER_HEALTH_RULE;


type Scenario = { name: string; drop: number | null };

type NumberOutcome = { watchedAt: number | null; restedAt: number | null; rests: number; firstChange: NumberHealthState | null };

/** One organization's 30 days. `drop`: number 0 answers at this share of the base rate from DROP_DAY on. */
function simulateOrganization(random: () => number, drop: number | null): NumberOutcome[] {
  // counts[number][day][stratum] = [calls, answered]
  const counts = Array.from({ length: NUMBERS }, () => Array.from({ length: DAYS }, () => Array.from({ length: STRATA }, () => [0, 0] as [number, number])));
  // The rule's window: per number and stratum, and the organization's totals per stratum.
  const window = Array.from({ length: NUMBERS }, () => Array.from({ length: STRATA }, () => [0, 0] as [number, number]));
  const totals = Array.from({ length: STRATA }, () => [0, 0] as [number, number]);
  const windowAll = Array.from({ length: NUMBERS }, () => [0, 0] as [number, number]);
  const totalAll: [number, number] = [0, 0];
  const health: NumberHealthState[] = Array.from({ length: NUMBERS }, () => "healthy");
  const monitors: HealthMonitor[] = Array.from({ length: NUMBERS }, () => EMPTY_MONITOR);
  const restingUntilDay: number[] = Array.from({ length: NUMBERS }, () => -1);
  const outcomes: NumberOutcome[] = Array.from({ length: NUMBERS }, () => ({ watchedAt: null, restedAt: null, rests: 0, firstChange: null as NumberHealthState | null }));
  const callsSinceDrop: number[] = Array.from({ length: NUMBERS }, () => 0);

  for (let day = 0; day < DAYS; day += 1) {
    for (let number = 0; number < NUMBERS; number += 1) {
      if (health[number] === "resting" && restingUntilDay[number]! <= day) {
        health[number] = "watch";
        monitors[number] = EMPTY_MONITOR;
      }
    }
    // The window slides by whole UTC days: the day that leaves it is taken off the totals.
    const leaving = day - RULE.windowDays;
    if (leaving >= 0) {
      for (let number = 0; number < NUMBERS; number += 1) {
        for (let s = 0; s < STRATA; s += 1) {
          const [calls, answered] = counts[number]![leaving]![s]!;
          window[number]![s]![0] -= calls;
          window[number]![s]![1] -= answered;
          totals[s]![0] -= calls;
          totals[s]![1] -= answered;
          windowAll[number]![0] -= calls;
          windowAll[number]![1] -= answered;
          totalAll[0] -= calls;
          totalAll[1] -= answered;
        }
      }
    }
    for (let tick = 0; tick < CALLS_PER_DAY; tick += 1) {
      for (let number = 0; number < NUMBERS; number += 1) {
        if (health[number] === "resting") continue;
        const region = random() < HOME_SHARE ? number % REGION_RATES.length : Math.floor(random() * REGION_RATES.length);
        const band = Math.floor(random() * BAND_FACTORS.length);
        const stratum = region * BAND_FACTORS.length + band;
        const peersCalls = totalAll[0] - windowAll[number]![0];
        const peersAnswered = totalAll[1] - windowAll[number]![1];
        const stratumCalls = totals[stratum]![0] - window[number]![stratum]![0];
        const stratumAnswered = totals[stratum]![1] - window[number]![stratum]![1];
        const expectedRate = expectedAnswerRate({ all: { calls: peersCalls, answered: peersAnswered }, stratum: { calls: stratumCalls, answered: stratumAnswered } }, RULE);
        const dropped = drop !== null && number === 0 && day >= DROP_DAY;
        const trueRate = REGION_RATES[region]! * BAND_FACTORS[band]! * (dropped ? drop : 1);
        const answered = random() < trueRate;
        for (const cell of [counts[number]![day]![stratum]!, window[number]![stratum]!, totals[stratum]!, windowAll[number]!, totalAll]) {
          cell[0] += 1;
          if (answered) cell[1] += 1;
        }
        if (dropped) callsSinceDrop[number] = callsSinceDrop[number]! + 1;

        const monitor = stepMonitor(monitors[number]!, { answered, expectedRate }, RULE);
        const decision = decideHealth(health[number]!, monitor, RULE);
        monitors[number] = decision.change ? decision.monitor : monitor;
        if (!decision.change) continue;
        health[number] = decision.to;
        if (decision.to === "resting") restingUntilDay[number] = day + REST_DAYS;
        // The bad number's changes before its drop are not detections (they are rare: the healthy row counts them).
        if (drop !== null && number === 0 && !dropped) continue;
        const at = dropped ? callsSinceDrop[number]! : day * CALLS_PER_DAY + tick + 1;
        outcomes[number]!.firstChange ??= decision.to;
        if (decision.to !== "healthy") outcomes[number]!.watchedAt ??= at;
        if (decision.to === "resting") {
          outcomes[number]!.restedAt ??= at;
          outcomes[number]!.rests += 1;
        }
      }
    }
  }
  return outcomes;
}

function percentile(values: number[], share: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(share * sorted.length) - 1)]!;
}

function show(value: number | null): string {
  return value === null ? "–" : String(value);
}

function main() {
  const scenarios: Scenario[] = [
    { name: "healthy (all at ~40 %)", drop: null },
    { name: "one drops 40 % → 5 %", drop: 5 / 40 },
    { name: "one drops 40 % → 15 %", drop: 15 / 40 },
    { name: "one drops 40 % → 25 %", drop: 25 / 40 },
  ];
  const rule = RULE;
  console.log(`number health rule: rest CUSUM ratio ${rule.rest.ratio}, h ${rule.rest.threshold}, ≥ ${rule.rest.minCalls} calls, observed ≤ ${rule.rest.maxObservedRatio} × expected;`);
  console.log(`  watch CUSUM ratio ${rule.watch.ratio}, h ${rule.watch.threshold}, ≥ ${rule.watch.minCalls} calls, observed ≤ ${rule.watch.maxObservedRatio} × expected; window ${rule.windowDays} days`);
  console.log(`${TRIALS} organizations × ${NUMBERS} numbers per scenario, ${CALLS_PER_DAY} calls/day for ${DAYS} days (seed ${SEED})\n`);
  const header = ["scenario", "numbers", "rested", "watched or rested", "calls to watch or rest p50/p90", "calls to rest p50/p90/p99/max", "straight to resting"];
  const rows: string[][] = [];
  let falseRest = 0;
  for (const [index, scenario] of scenarios.entries()) {
    const random = seededRandom(SEED * 1000 + index);
    const started = performance.now();
    let healthyNumbers = 0;
    let healthyRested = 0;
    let healthyWatched = 0;
    const watchDelays: number[] = [];
    const restDelays: number[] = [];
    let badNumbers = 0;
    let straightToRest = 0;
    for (let trial = 0; trial < TRIALS; trial += 1) {
      const outcomes = simulateOrganization(random, scenario.drop);
      for (const [number, outcome] of outcomes.entries()) {
        if (scenario.drop !== null && number === 0) {
          badNumbers += 1;
          if (outcome.watchedAt !== null) watchDelays.push(outcome.watchedAt);
          if (outcome.restedAt !== null) restDelays.push(outcome.restedAt);
          if (outcome.firstChange === "resting") straightToRest += 1;
          continue;
        }
        healthyNumbers += 1;
        if (outcome.restedAt !== null) healthyRested += 1;
        if (outcome.watchedAt !== null) healthyWatched += 1;
      }
    }
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    if (scenario.drop === null) {
      falseRest = healthyRested / healthyNumbers;
      rows.push([scenario.name, String(healthyNumbers), pct(healthyRested, healthyNumbers), pct(healthyWatched, healthyNumbers), "–", "–", "–"]);
    } else {
      rows.push([
        `${scenario.name}  (peers: ${pct(healthyRested, healthyNumbers)} rested)`,
        String(badNumbers),
        pct(restDelays.length, badNumbers),
        pct(watchDelays.length, badNumbers),
        `${show(percentile(watchDelays, 0.5))} / ${show(percentile(watchDelays, 0.9))}`,
        `${show(percentile(restDelays, 0.5))} / ${show(percentile(restDelays, 0.9))} / ${show(percentile(restDelays, 0.99))} / ${show(percentile(restDelays, 1))}`,
        pct(straightToRest, badNumbers),
      ]);
    }
    process.stderr.write(`${scenario.name}: ${seconds} s\n`);
  }
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column]!.length)));
  const line = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column]!)).join(" | ")} |`;
  console.log(line(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const row of rows) console.log(line(row));
  console.log(`\nfalse rests on healthy numbers: ${(falseRest * 100).toFixed(2)} % per number-month (goal ≤ ${FALSE_REST_GOAL * 100} %): ${falseRest <= FALSE_REST_GOAL ? "met" : "NOT met"}`);
  console.log("rested / watched: numbers the rule rested (or put under watch or rested) at least once in the 30 days; for a dropping number, after its drop (23 days).");
  console.log("calls to …: the dropping number's calls from the drop until its first change; straight to resting: that change was a rest (one event).");
}

function pct(count: number, total: number): string {
  return `${count} (${((count / Math.max(1, total)) * 100).toFixed(1)} %)`;
}

main();
