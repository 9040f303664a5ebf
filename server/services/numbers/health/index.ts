/**
 * Number health (docs/numbers.md "Number health"): per-number daily counters, the rule, and what follows from it.
 * What other parts of the app call:
 * - the dial gate: `getConfig().NUMBER_DAILY_CALL_CAP` (a number's own `dailyCallCap` first) and `numbers.restingUntil`;
 *   `findPoolRest` for the sentence the agent's page shows when the whole pool rests;
 * - the console and the API: `findNumberHealth`;
 * - the call engine: `recordNumberCall` + `evaluateNumberHealthAfterCall` (finalize-call.ts), `recordNumberStop`
 *   (receive-sms.ts); the sweep: `wakeRestedNumbers`.
 */
export { callStratum, statsDayOf } from "./call-stratum";
export { changeNumberHealth, numberHealthEventData, type NumberHealthChange } from "./change-number-health";
export { evaluateNumberHealthAfterCall, type EvaluateNumberHealthParams } from "./evaluate-number-health";
export { findNumberHealth, MAX_HEALTH_DAYS, type FindNumberHealthParams, type NumberHealthDay, type NumberHealthView } from "./find-number-health";
export { NUMBER_HEALTH_RULE, decideHealth, describeHealthEvidence, expectedAnswerRate, stepMonitor } from "./health-rule";
export { findAgentPoolRest, findPoolRest, type PoolRest } from "./pool-rest";
export { recordNumberCall, recordNumberStop, numberCallOutcomeOf } from "./record-number-stats";
export { wakeRestedNumbers } from "./wake-rested-numbers";
