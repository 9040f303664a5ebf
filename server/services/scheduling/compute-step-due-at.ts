import { DateTime } from "luxon";
import type { AgentStep, TimeWindow } from "@/db/schema";

export type ComputeStepDueAtParams = {
  step: AgentStep;
  /** When the previous step ended; null for a sequence's first step (it counts from `now`). */
  previousEndedAt: Date | null;
  /** IANA zone of the contact (used when the step's `timezoneSource` is `contact`). */
  contactTimezone: string;
  /** The agent's first timezone (used when `timezoneSource` is `agent`). */
  agentTimezone: string;
  /** Ignore the step's time window (the day offset and the delay still apply). */
  bypassCallWindows: boolean;
  now: Date;
  /** Uniform in [0, 1); draws the jitter between `delaySeconds` and `delaySecondsMax`. */
  random?: () => number;
  /**
   * Explicit earliest time requested at enrollment (first step only). It replaces the delay and the day offset;
   * the time window still applies unless bypassed.
   */
  scheduledAt?: Date | null;
};

const MINUTES_PER_DAY = 1440;

/** The zone a step's window is read in. */
export function stepTimezone(step: AgentStep, contactTimezone: string, agentTimezone: string): string {
  return step.executionWindowConfig.timezoneSource === "contact" ? contactTimezone : agentTimezone;
}

/** Seconds to wait after the previous step: `delaySeconds`, plus a uniform integer jitter up to `delaySecondsMax`. */
export function drawDelaySeconds(step: AgentStep, random: () => number): number {
  const min = Math.max(0, step.delaySeconds);
  const max = step.delaySecondsMax;
  if (max === null || max === undefined || max <= min) return min;
  return min + Math.min(max - min, Math.floor(random() * (max - min + 1)));
}

/**
 * The instant a step becomes due. Pure: the same inputs give the same answer.
 *
 * 1. Earliest instant: the explicit `scheduledAt` if given; otherwise `previousEndedAt ?? now` plus the delay,
 *    and not before local midnight of the day `dayOffset` days after that base day (in the step's zone).
 * 2. Never in the past: at least `now`.
 * 3. Unless `bypassCallWindows`, moved to the first instant inside the step's window. Window times are wall-clock
 *    minutes after local midnight in the step's zone, so a 09:00 start is 09:00 local on both sides of a DST change
 *    (a start inside a spring-forward gap moves to the first valid instant after it). `endTime` is exclusive;
 *    `startTime > endTime` is an overnight window (22:00–02:00); `startTime === endTime` or 0–1440 means always open.
 */
export function computeStepDueAt(params: ComputeStepDueAtParams): Date {
  const { step, now } = params;
  const zone = stepTimezone(step, params.contactTimezone, params.agentTimezone);
  let earliest: number;
  if (params.scheduledAt) {
    earliest = params.scheduledAt.getTime();
  } else {
    const base = params.previousEndedAt ?? now;
    earliest = base.getTime() + drawDelaySeconds(step, params.random ?? Math.random) * 1000;
    const dayOffset = step.executionWindowConfig.dayOffset;
    if (dayOffset > 0) {
      const firstDay = DateTime.fromJSDate(base, { zone }).startOf("day").plus({ days: dayOffset });
      earliest = Math.max(earliest, firstDay.toMillis());
    }
  }
  earliest = Math.max(earliest, now.getTime());
  if (params.bypassCallWindows) return new Date(earliest);
  return new Date(firstInstantInWindow(earliest, step.executionWindowConfig.timeWindow, zone));
}

/** Whether the window admits every instant of the day. */
export function isAlwaysOpen(window: TimeWindow): boolean {
  const start = clampMinutes(window.startTime);
  const end = clampMinutes(window.endTime);
  return start === end || (start === 0 && end === MINUTES_PER_DAY);
}

const windowCache = new Map<string, number>();
const WINDOW_CACHE_LIMIT = 50_000;

/**
 * The first instant ≥ `instant` (epoch ms) that lies inside the daily window, read in `zone`.
 * Memoized: the contacts of one batch share `now` and a handful of zones, and each uncached answer costs a dozen
 * Intl offset lookups.
 */
export function firstInstantInWindow(instant: number, window: TimeWindow, zone: string): number {
  if (isAlwaysOpen(window)) return instant;
  const key = `${zone}|${window.startTime}|${window.endTime}|${instant}`;
  const cached = windowCache.get(key);
  if (cached !== undefined) return cached;
  const result = searchWindow(instant, window, zone);
  if (windowCache.size >= WINDOW_CACHE_LIMIT) windowCache.clear();
  windowCache.set(key, result);
  return result;
}

function searchWindow(instant: number, window: TimeWindow, zone: string): number {
  const start = clampMinutes(window.startTime);
  const end = clampMinutes(window.endTime);
  const localDay = DateTime.fromMillis(instant, { zone }).startOf("day");
  // Start one day early: an overnight window opened yesterday may still be open.
  for (let offset = -1; offset <= 2; offset += 1) {
    const day = localDay.plus({ days: offset });
    const opens = wallClock(day, start, zone);
    const closes = start < end ? wallClock(day, end, zone) : wallClock(day.plus({ days: 1 }), end, zone);
    if (instant < closes) return Math.max(instant, opens);
  }
  throw new Error(`No window instant found for ${JSON.stringify(window)} in ${zone}`);
}

/** `minutes` after local midnight of `day`, as wall-clock time (1440 is the next midnight). */
function wallClock(day: DateTime, minutes: number, zone: string): number {
  const base = minutes >= MINUTES_PER_DAY ? day.plus({ days: 1 }) : day;
  const m = minutes % MINUTES_PER_DAY;
  return DateTime.fromObject(
    { year: base.year, month: base.month, day: base.day, hour: Math.floor(m / 60), minute: m % 60 },
    { zone },
  ).toMillis();
}

function clampMinutes(value: number): number {
  return Math.min(MINUTES_PER_DAY, Math.max(0, Math.round(value)));
}

export type CallPlan = { stepNumber: number; dueAt: Date };
export type FirstCallPlan = CallPlan;

export type PlanCallStepParams = {
  steps: AgentStep[];
  /** 1-based position of the step that just ended; 0 to plan from the start of the sequence. */
  afterStepNumber: number;
  /** When that step ended (delays count from here); null at the start. */
  previousEndedAt: Date | null;
  contactTimezone: string;
  agentTimezone: string;
  bypassCallWindows: boolean;
  /** Explicit time requested at enrollment: applies to the sequence's first step only. */
  scheduledAt?: Date | null;
  now: Date;
  random?: () => number;
};

/**
 * The next CALL step after `afterStepNumber` (1-based position among all steps) and when it is due. Steps that are
 * not calls (EMAIL) are not executed by the call engine: they are taken to end when they are due, and the next
 * step's delay counts from then. Null when no CALL step is left. Enrollment and the call engine both plan with it.
 */
export function planCallStep(params: PlanCallStepParams): CallPlan | null {
  let previousEndedAt = params.previousEndedAt;
  for (let index = params.afterStepNumber; index < params.steps.length; index += 1) {
    const step = params.steps[index]!;
    const dueAt = computeStepDueAt({
      step,
      previousEndedAt,
      contactTimezone: params.contactTimezone,
      agentTimezone: params.agentTimezone,
      bypassCallWindows: params.bypassCallWindows,
      now: params.now,
      random: params.random,
      scheduledAt: index === 0 ? (params.scheduledAt ?? null) : null,
    });
    if (step.stepType === "CALL") return { stepNumber: index + 1, dueAt };
    previousEndedAt = dueAt;
  }
  return null;
}

export type StepPlan = { stepNumber: number; stepType: AgentStep["stepType"]; dueAt: Date };

/**
 * The step after `afterStepNumber` (1-based; 0 = the sequence's first), of any type, and when it is due: what the
 * sequence runner executes next (CALL steps through the call engine, EMAIL and SMS through the message sender).
 * Null when no step is left.
 */
export function planNextStep(params: PlanCallStepParams): StepPlan | null {
  const index = params.afterStepNumber;
  const step = params.steps[index];
  if (!step) return null;
  const dueAt = computeStepDueAt({
    step,
    previousEndedAt: params.previousEndedAt,
    contactTimezone: params.contactTimezone,
    agentTimezone: params.agentTimezone,
    bypassCallWindows: params.bypassCallWindows,
    now: params.now,
    random: params.random,
    scheduledAt: index === 0 ? (params.scheduledAt ?? null) : null,
  });
  return { stepNumber: index + 1, stepType: step.stepType, dueAt };
}

/** The sequence's first CALL step and when it is due (see planCallStep). */
export function planFirstCall(params: Omit<PlanCallStepParams, "afterStepNumber" | "previousEndedAt">): FirstCallPlan | null {
  return planCallStep({ ...params, afterStepNumber: 0, previousEndedAt: null });
}
