import { TRPCError, type TRPC_ERROR_CODE_KEY } from "@trpc/server";
import { hasBrand, stampBrands } from "./runtime/cross-copy";

/**
 * The one table of error codes: code → HTTP status → tRPC code (DESIGN §4).
 * Every error the app raises on purpose is an AppError with one of these codes; the `/api/v1`
 * wrapper turns it into `{error, message}` with this status, the dashboard gets the same code in `data.appCode`.
 */
export const ERROR_TABLE = {
  INVALID_REQUEST: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_REQUEST_BODY: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_PHONE_NUMBER: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_TIMEZONE: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_SCHEDULED_AT: { status: 400, trpc: "BAD_REQUEST" },
  MISSING_INPUT_VARIABLE: { status: 400, trpc: "BAD_REQUEST" },
  MISSING_EMAIL: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_INPUT_VARIABLE: { status: 400, trpc: "BAD_REQUEST" },
  TOO_MANY_CALLS: { status: 400, trpc: "BAD_REQUEST" },
  TOO_MANY_TEST_CASES: { status: 400, trpc: "BAD_REQUEST" },
  NO_VALID_CONTACTS: { status: 400, trpc: "BAD_REQUEST" },
  MISSING_CONSENT: { status: 400, trpc: "BAD_REQUEST" },
  INVALID_CONSENT: { status: 400, trpc: "BAD_REQUEST" },
  UNAUTHORIZED: { status: 401, trpc: "UNAUTHORIZED" },
  INVALID_API_KEY: { status: 401, trpc: "UNAUTHORIZED" },
  INSUFFICIENT_CREDITS: { status: 402, trpc: "PAYMENT_REQUIRED" },
  FORBIDDEN: { status: 403, trpc: "FORBIDDEN" },
  ORG_MISMATCH: { status: 403, trpc: "FORBIDDEN" },
  NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  AGENT_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  SEQUENCE_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  CALL_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  MEETING_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  PROMPT_VERSION_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  TEST_CASE_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  TEST_RUN_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  SUPPRESSION_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  NUMBER_NOT_FOUND: { status: 404, trpc: "NOT_FOUND" },
  METHOD_NOT_ALLOWED: { status: 405, trpc: "METHOD_NOT_SUPPORTED" },
  CONFLICT: { status: 409, trpc: "CONFLICT" },
  MEETING_ALREADY_STARTED: { status: 409, trpc: "CONFLICT" },
  MEETING_CANCELLED: { status: 409, trpc: "CONFLICT" },
  OPTED_OUT: { status: 409, trpc: "CONFLICT" },
  /** A number another organization owns (docs/numbers.md): never pooled, bought, claimed or validated by a second one. */
  NUMBER_OWNED_ELSEWHERE: { status: 409, trpc: "CONFLICT" },
  /** A body without Content-Length where the limit is checked from it (routes served by Next.js). */
  LENGTH_REQUIRED: { status: 411, trpc: "BAD_REQUEST" },
  PAYLOAD_TOO_LARGE: { status: 413, trpc: "PAYLOAD_TOO_LARGE" },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, trpc: "UNSUPPORTED_MEDIA_TYPE" },
  AGENT_MISCONFIGURED: { status: 422, trpc: "UNPROCESSABLE_CONTENT" },
  RATE_LIMITED: { status: 429, trpc: "TOO_MANY_REQUESTS" },
  INTERNAL_SERVER_ERROR: { status: 500, trpc: "INTERNAL_SERVER_ERROR" },
  PROVIDER_ERROR: { status: 502, trpc: "BAD_GATEWAY" },
  PROVIDER_UNAVAILABLE: { status: 503, trpc: "SERVICE_UNAVAILABLE" },
} as const satisfies Record<string, { status: number; trpc: TRPC_ERROR_CODE_KEY }>;

export type AppErrorCode = keyof typeof ERROR_TABLE;

/** The only message a 500 ever carries: unexpected errors never leak internals (STYLE 8). */
export const INTERNAL_ERROR_MESSAGE = "An unexpected error occurred. Retry with backoff.";

export class AppError extends Error {
  /** Checked by brand, not by class identity: see server/runtime/cross-copy.ts. */
  static readonly brand: symbol = Symbol.for("outbound-calling.AppError");
  static [Symbol.hasInstance](value: unknown): boolean {
    return hasBrand(value, this);
  }

  readonly code: AppErrorCode;
  readonly details?: Record<string, unknown>;

  constructor(code: AppErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    stampBrands(this, new.target);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return ERROR_TABLE[this.code].status;
  }
}

/** One refused input field, as zod's issues are sent (`details.issues`): the console shows the message beside that field. */
export type FieldIssue = { path: string; message: string };

/**
 * 400 INVALID_REQUEST about one input field (a rule a service checks): the message names the field as the API's
 * validation does (`emailFrom: … is not an email address`), and `details.issues` carries the path and the message
 * apart, as for a schema error, so the console can put the message next to its field without showing the path.
 */
export function invalidField(path: string, message: string): AppError {
  const issue: FieldIssue = { path, message };
  return new AppError("INVALID_REQUEST", `${path}: ${message}`, { issues: [issue] });
}

export function isAppErrorCode(value: unknown): value is AppErrorCode {
  return typeof value === "string" && value in ERROR_TABLE;
}

/** The tRPC code → our code, for errors tRPC raises itself (parse errors, unknown procedures). */
export function appCodeForTrpcCode(trpcCode: string): AppErrorCode {
  switch (trpcCode) {
    case "PARSE_ERROR":
      return "INVALID_REQUEST_BODY";
    case "BAD_REQUEST":
      return "INVALID_REQUEST";
    case "UNAUTHORIZED":
      return "UNAUTHORIZED";
    case "FORBIDDEN":
      return "FORBIDDEN";
    case "NOT_FOUND":
      return "NOT_FOUND";
    case "METHOD_NOT_SUPPORTED":
      return "METHOD_NOT_ALLOWED";
    case "CONFLICT":
      return "CONFLICT";
    case "PAYLOAD_TOO_LARGE":
      return "PAYLOAD_TOO_LARGE";
    case "UNSUPPORTED_MEDIA_TYPE":
      return "UNSUPPORTED_MEDIA_TYPE";
    case "TOO_MANY_REQUESTS":
      return "RATE_LIMITED";
    case "PAYMENT_REQUIRED":
      return "INSUFFICIENT_CREDITS";
    case "UNPROCESSABLE_CONTENT":
      return "AGENT_MISCONFIGURED";
    default:
      return "INTERNAL_SERVER_ERROR";
  }
}

/** Our code for anything thrown by a tRPC caller or a service. */
export function appCodeOfError(error: unknown): AppErrorCode {
  if (error instanceof AppError) return error.code;
  if (error instanceof TRPCError) {
    if (error.cause instanceof AppError) return error.cause.code;
    return appCodeForTrpcCode(error.code);
  }
  return "INTERNAL_SERVER_ERROR";
}
