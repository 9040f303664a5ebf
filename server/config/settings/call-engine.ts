import { CARRIER_NAMES, DEFAULT_CARRIER } from "@/server/carriers/registry";
import { settingsOf } from "./setting";
import { flag, httpOriginList, httpUrl, oneOf, positiveNumber, wholeNumber } from "./value-types";

/**
 * The call engine: the voice engine, the simulator, quiet hours, dial pacing, numbers' caps and rest, the dispatcher,
 * the watchdog and the call-quality thresholds (docs/call-engine.md, docs/numbers.md, docs/call-quality.md).
 */
const setting = settingsOf("Call engine");

export const callEngineSettings = {
  VOICE_ENGINE: setting(oneOf(CARRIER_NAMES).default(DEFAULT_CARRIER), {
    description: "`simulator`: outcome by the number's last digit (DESIGN §7); `twilio-realtime`: real calls (docs/voice-twilio.md).",
    default: "`simulator`",
    sameOnEveryInstance: true,
  }),
  CALL_QUALITY_LATENCY_THRESHOLD_MS: setting(wholeNumber(100, 60_000).default(1500), {
    description: "The overview lists the calls whose p95 response latency is above this (docs/call-quality.md).",
    default: "`1500`",
  }),
  CALL_QUALITY_DEAD_AIR_SECONDS: setting(wholeNumber(1, 60).default(3), {
    description: "Silence on both sides of a call longer than this counts as dead air (docs/call-quality.md).",
    default: "`3`",
  }),
  SIMULATOR_EVENTS_URL: setting(httpUrl().optional(), {
    description: "Where the simulated voice engine posts its call events.",
    default: "`http://127.0.0.1:$PORT/api/voice/events`",
  }),
  VOICE_RECORDING_URL_ORIGINS: setting(httpOriginList().optional(), {
    description:
      "Origins (comma-separated, e.g. `https://media.provider.example`) a voice provider's `call.ended` event may point its `recording.url` at; the analysis step downloads the audio from there into the recording store (never the event request). URLs elsewhere are not fetched: the call keeps the URL and reports `no-recording`. The simulator's own recording host is always allowed.",
    default: "none (only the simulator's recording host)",
  }),
  VOICE_SIMULATOR_PROCESS: setting(oneOf(["separate", "in-app"] as const).default("separate"), {
    description:
      "Where the simulator's conversations run. `separate`: a child process of the app (started, restarted when it dies, and stopped with it), as a provider runs calls on its own machines, so they cost the app's event loop nothing; `in-app`: in the app's own process, as before round 6.",
    default: "`separate`",
  }),
  VOICE_SIMULATOR_MS_PER_SECOND: setting(wholeNumber(1, 1000).optional(), {
    description:
      "How fast the simulator's live calls run: wall milliseconds per simulated second. Slower values let a person (or an e2e test) follow a call on the Live calls page and hang it up.",
    default: "`12` (a 7-minute call in about 5 s)",
  }),
  VOICE_SIMULATOR_MAX_CONVERSATION_MS: setting(wholeNumber(1, 600_000).optional(), {
    description: "Longest wall time of one simulated conversation.",
    default: "`8000`",
  }),
  COMPLIANCE_QUIET_HOURS: setting(flag().default(true), {
    description:
      "Quiet hours at dial time (federal 8:00–21:00 and the states' stricter hours, docs/compliance.md). `off` is only for test and staging deployments that call simulated numbers around the clock (the e2e server sets it): never turn it off where real people are called.",
    default: "`on`",
    sameOnEveryInstance: true,
  }),
  CALL_PAUSED_RECHECK_SECONDS: setting(wholeNumber(1, 86_400).default(300), {
    description: "How long a due call of a paused agent waits before it is looked at again.",
    default: "`300`",
    sameOnEveryInstance: true,
  }),
  CALL_DIAL_RATE_PER_SECOND: setting(positiveNumber(10_000).default(10), {
    description:
      "Calls per second one organization dials, all its agents together (an organization's `dial_rate_per_second` column overrides it); a burst is spread over time on purpose and each call records its planned slot (`dial_slot_at`). See docs/call-engine.md.",
    default: "`10`",
    sameOnEveryInstance: true,
  }),
  CALL_DIAL_RATE_PER_NUMBER_PER_SECOND: setting(positiveNumber(10_000).default(5), {
    description: "Calls per second from one caller ID (one of an agent's numbers).",
    default: "`5`",
    sameOnEveryInstance: true,
  }),
  NUMBER_DAILY_CALL_CAP: setting(wholeNumber(1, 100_000).default(100), {
    description:
      "Calls a day one number places, when the number has no cap of its own (`daily_call_cap`). Carriers' and analytics engines' guidance for outbound caller IDs is on the order of 100 calls a day per number; above it numbers are labelled spam sooner. See docs/numbers.md.",
    default: "`100`",
    sameOnEveryInstance: true,
  }),
  NUMBER_REST_HOURS: setting(wholeNumber(1, 2_160).default(72), {
    description:
      "How long a number the health rule rests stays out of the rotation; it then comes back under `watch` (docs/numbers.md \"Number health\").",
    default: "`72`",
    sameOnEveryInstance: true,
  }),
  CALL_DISPATCH_HORIZON_MS: setting(wholeNumber(1, 60_000).default(2000), {
    description:
      "How far ahead one claim of the dispatcher plans dial slots; the next claim starts when half of it is spent, while the calls of this one are still being placed. A claimed call waits at most this long for its slot (the dial gate's checks are that old when it is dialed). See docs/call-engine.md.",
    default: "`2000`",
    sameOnEveryInstance: true,
  }),
  CALL_DISPATCH_STEP_BUDGET_MS: setting(wholeNumber(0, 60_000).default(10_000), {
    description:
      "How long one dispatcher step keeps claiming and placing before it returns (the run then sleeps or goes on with a new step). Keep it well under the request timeout of the Inngest deployment; 0: one claim per step.",
    default: "`10000`",
    sameOnEveryInstance: true,
  }),
  CALL_DISPATCH_MAX_ANALYSIS_BACKLOG: setting(wholeNumber(0, 1_000_000).default(500), {
    description:
      "Backpressure: ended calls awaiting analysis (`Processing Analysis`, all instances) at which the dispatcher stops claiming new calls; below it a claim takes at most the room left. The wait from a call's end to its analysis stays around this bound divided by the analysis throughput, whatever the campaign's size. Dial-rate limits and caps hold as before; 0 turns the rule off. See docs/call-engine.md \"Backpressure\".",
    default: "`500`",
    sameOnEveryInstance: true,
  }),
  CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS: setting(wholeNumber(1, 86_400).optional(), {
    description:
      "A call may stay `Calling` this long after the provider's last event before the watchdog asks the provider about it. The watchdog fails it only if the provider has no such call; one still in the air waits (docs/call-engine.md \"Watchdog\").",
    default: "the voice engine's longest call + 120",
    sameOnEveryInstance: true,
  }),
  CALL_WATCHDOG_LATE_EVENTS_SECONDS: setting(wholeNumber(1, 86_400).default(300), {
    description:
      "After the provider says a call ended, its events may be this late; past it, the watchdog ends the call with the provider's own result (disposition, duration; no transcript or recording).",
    default: "`300`",
    sameOnEveryInstance: true,
  }),
  CALL_WATCHDOG_ANALYSIS_TIMEOUT_SECONDS: setting(wholeNumber(1, 86_400).default(600), {
    description: "A call may stay `Processing Analysis` this long before the watchdog fails it.",
    default: "`600`",
    sameOnEveryInstance: true,
  }),
};
