/**
 * Every bound on what clients may send, in one place. The zod contracts (REST and the console's tRPC procedures)
 * and the bulk per-contact validation read them from here, the OpenAPI document shows them (`maxLength`, `maxItems`,
 * `maximum`), and docs/security.md "Input limits" lists them (a test keeps that table in step with this file).
 *
 * Chosen to be generous for real use and small enough that one request cannot store or fan out megabytes:
 * a contact is at most ~60 kB of text (50 variables × 1,000 characters plus its fields), and so is its webhook body.
 */

// ── Identifiers and short text ──────────────────────────────────────────────────────────────────────────────────
/** Any ID a client sends back (`agent.<ulid>`, `call.<ulid>`, org IDs, cursors, key/endpoint/delivery IDs). */
export const MAX_ID_LENGTH = 128;
/** Contact, agent, outcome and attendee names, display names, search terms, a webhook endpoint's description. */
export const MAX_NAME_LENGTH = 200;
/** Descriptions of variables and outcomes, a meeting's cancellation reason. */
export const MAX_DESCRIPTION_LENGTH = 1_000;
/** RFC 5321: a forward path is at most 256 octets including the angle brackets. */
export const MAX_EMAIL_LENGTH = 254;
/** A phone number as sent, before normalization: room for formatted forms such as `+1 (415) 555-0171 ext. 1234`. */
export const MAX_PHONE_NUMBER_LENGTH = 64;
/** An E.164 number: `+` and at most 15 digits (attendee phone numbers are sent normalized). */
export const MAX_E164_LENGTH = 16;
/** `phoneNumberExt`: digits only. */
export const MAX_PHONE_EXTENSION_DIGITS = 10;
/** IANA names are at most 32 characters today (`America/Argentina/ComodRivadavia`). */
export const MAX_TIMEZONE_LENGTH = 64;
/** `scheduledAt` as sent; a DATE/TIME variable's format pattern. */
export const MAX_DATETIME_LENGTH = 64;
/** BCP 47 language tag of a meeting attendee. */
export const MAX_LANGUAGE_LENGTH = 35;
export const MAX_API_KEY_NAME_LENGTH = 100;
export const MAX_URL_LENGTH = 2_048;

// ── Contacts (single and bulk enrollment, CSV import) ──────────────────────────────────────────────────────────
/** Custom input variable names (also `groupByField`, `referenceKey`, `titleCaseFields` items); agent slugs fit. */
export const MAX_VARIABLE_NAME_LENGTH = 64;
/** Custom input variable values (also `referenceValue`). */
export const MAX_VARIABLE_VALUE_LENGTH = 1_000;
/** Custom input variables per contact, top-level properties and `customVariables` together. */
export const MAX_VARIABLES_PER_CONTACT = 50;
/** `titleCaseFields`: every variable of a contact, and `name`. */
export const MAX_TITLE_CASE_FIELDS = MAX_VARIABLES_PER_CONTACT + 1;
/** Spec: 1 to 1,000 contacts per bulk request; also the rows of one CSV import batch. */
export const MAX_CONTACTS_PER_REQUEST = 1_000;
/** Spec: the idempotency key is at most 255 characters. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
/** `scheduledAt` at most this far ahead (a later first call is almost surely a typo in the year). */
export const MAX_SCHEDULE_AHEAD_DAYS = 730;
/**
 * UTC offsets in `scheduledAt`: at most ±14:00, the range real time zones use (UTC−12 to UTC+14). ISO 8601 allows
 * any ±hh:mm syntactically; `+25:00` or `+20:00` is a typo, refused instead of scheduling a surprise.
 */
export const MAX_UTC_OFFSET_MINUTES = 14 * 60;

// ── Collections of the other endpoints ──────────────────────────────────────────────────────────────────────────
/** Spec: POST /recordings takes 1 to 100 sequence IDs. */
export const MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST = 100;
/** Spec: 1 to 30 attendees per add request. */
export const MAX_ATTENDEES_PER_REQUEST = 30;
/** IDs per console lookup (one search page of sequence summaries, import progress of one file's batches). */
export const MAX_IDS_PER_LOOKUP = 1_000;
/** Agents a webhook endpoint may be filtered to. */
export const MAX_WEBHOOK_AGENT_FILTER = 200;
/**
 * Procedure calls in one batched console request (`/api/trpc/a,b,c?batch=1`); the console's client splits its batches
 * at this size (httpBatchLink `maxItems`), so only hand-made requests meet the 400.
 */
export const MAX_TRPC_BATCH_SIZE = 50;
/** Numbers per POST /suppressions (and per CSV import request of the console's suppression page). */
export const MAX_SUPPRESSIONS_PER_REQUEST = 10_000;

// ── Paging query parameters ─────────────────────────────────────────────────────────────────────────────────────
/** Spec: search `limit` 1 to 500. */
export const MAX_SEARCH_LIMIT = 500;
/** GET /events `limit` 1 to 500. */
export const MAX_EVENTS_LIMIT = 500;
/** `page` (GET /agents, console lists): 100 per page makes this ten million agents. */
export const MAX_PAGE = 100_000;
/** `offset` (search). */
export const MAX_OFFSET = 1_000_000_000;
/** Dates in query strings (`start`, `end`, `month`, `startDate`, `endDate`) are years 1900 to 9999. */
export const MIN_QUERY_YEAR = 1900;
export const MAX_QUERY_YEAR = 9999;

// ── Agents (console agent editor) ───────────────────────────────────────────────────────────────────────────────
export const MAX_PROMPT_LENGTH = 20_000;
export const MAX_SLUG_LENGTH = 64;
export const MAX_AGENT_TIMEZONES = 10;
export const MAX_AGENT_PHONE_NUMBERS = 50;
export const MAX_AGENT_STEPS = 20;
/** Input variables, extraction variables and outcomes of one agent, each. */
export const MAX_AGENT_DEFINITIONS = 100;
export const MAX_DROPDOWN_OPTIONS = 100;
/** A step's `delaySeconds` / `delaySecondsMax`: one year. */
export const MAX_STEP_DELAY_SECONDS = 365 * 24 * 3600;
/** A step's `dayOffset`. */
export const MAX_STEP_DAY_OFFSET = 365;
/** Chili Piper IDs in a booking configuration. */
export const MAX_CONFIG_VALUE_LENGTH = 200;

// ── Agent tests (docs/agent-testing.md) ─────────────────────────────────────────────────────────────────────────
/** Test cases of one agent. */
export const MAX_TEST_CASES_PER_AGENT = 100;
/** Cases in one test run. */
export const MAX_TEST_CASES_PER_RUN = 100;
/** Cases of one run played at once (and the default). */
export const MAX_TEST_RUN_CONCURRENCY = 10;
/** A test case's caller persona; an LLM judge's rubric. */
export const MAX_TEST_PERSONA_LENGTH = 4_000;
export const MAX_TEST_RUBRIC_LENGTH = 1_000;
/** Expectations of each kind in one case (outcomes, variables, tools). */
export const MAX_TEST_EXPECTATIONS = 50;
/** A case's `maxTurns` (agent and caller turns together). */
export const MAX_TEST_TURNS = 30;
/** A number an extracted-variable expectation compares with, either sign. */
export const MAX_TEST_EXPECTED_NUMBER = 1_000_000_000_000;

// ── Calling limits (agent and organization settings) ────────────────────────────────────────────────────────────
/** Maximum concurrent calls an organization or an agent may be set to. */
export const MAX_CONCURRENT_CALLS_SETTING = 10_000;
/** Largest per-agent daily credit cap. */
export const MAX_DAILY_CREDIT_CAP = 10_000_000;
/** Auto-pause looks at the agent's last N calls: N from MIN_AUTO_PAUSE_WINDOW_CALLS to MAX_AUTO_PAUSE_WINDOW_CALLS. */
export const MIN_AUTO_PAUSE_WINDOW_CALLS = 5;
export const MAX_AUTO_PAUSE_WINDOW_CALLS = 1_000;

/** Templates of EMAIL and SMS steps (docs/sequences.md). */
export const MAX_TEMPLATE_SUBJECT_LENGTH = 300;
export const MAX_TEMPLATE_BODY_LENGTH = 20_000;
