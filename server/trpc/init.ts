import { initTRPC, TRPCError } from "@trpc/server";
import type { OpenApiMeta } from "trpc-to-openapi";
import { ZodError } from "zod";
import { AppError, appCodeForTrpcCode, ERROR_TABLE, INTERNAL_ERROR_MESSAGE, type AppErrorCode } from "../errors";
import { findRefusedInput } from "../schemas/text";
import { describeZodError, zodIssuesOf } from "../schemas/validation-message";
import { authenticate, type AuthContext } from "../auth/authenticate";
import type { MemberRole } from "@/db/schema";
import { getLogger } from "@/server/observability/logger";
import type { Context } from "./context";

/**
 * `successStatus`: the HTTP status of a successful REST call (default 200); also written into the OpenAPI document.
 * `perItemInput`: top-level input fields whose items the service validates one by one (bulk contacts, import rows),
 * so that one bad item is rejected alone: the text guard leaves them to it.
 */
export type Meta = OpenApiMeta<{ successStatus?: number; perItemInput?: readonly string[] }>;

export type AppErrorData = {
  appCode: AppErrorCode;
  /** The message again: trpc-to-openapi replaces the top-level one for validation errors. */
  message: string;
  httpStatus: number;
  details?: Record<string, unknown>;
  path?: string;
};

const t = initTRPC
  .context<Context>()
  .meta<Meta>()
  .create({
    errorFormatter({ shape, error }) {
      let appCode: AppErrorCode;
      let message: string;
      let details: Record<string, unknown> | undefined;
      if (error.cause instanceof AppError) {
        appCode = error.cause.code;
        message = error.cause.message;
        details = error.cause.details;
      } else if (error.cause instanceof ZodError) {
        appCode = "INVALID_REQUEST";
        message = describeZodError(error.cause);
        details = { issues: zodIssuesOf(error.cause) };
      } else {
        appCode = appCodeForTrpcCode(error.code);
        // Unexpected errors never leak internals (STYLE 8).
        message = appCode === "INTERNAL_SERVER_ERROR" ? INTERNAL_ERROR_MESSAGE : error.message;
      }
      const data: AppErrorData = { appCode, message, httpStatus: ERROR_TABLE[appCode].status, details, path: shape.data.path };
      return { message, code: shape.code, data };
    },
  });

/**
 * Turns AppErrors into TRPCErrors with the right tRPC code, so the dashboard sees the same status as REST,
 * and applies the procedure's `successStatus` to the REST response.
 */
const appErrorMiddleware = t.middleware(async ({ ctx, meta, next }) => settleResult(await next(), ctx, meta));

type MiddlewareResult = Awaited<ReturnType<Parameters<Parameters<typeof t.middleware>[0]>[0]["next"]>>;

/** What appErrorMiddleware does with the result of the rest of the chain (also used by orgMiddleware). */
function settleResult<R extends MiddlewareResult>(result: R, ctx: Context, meta: Meta | undefined): R {
  if (result.ok && meta?.successStatus) ctx.resMeta.status = meta.successStatus;
  if (!result.ok) {
    const cause = result.error.cause;
    if (cause instanceof AppError) {
      throw new TRPCError({ code: ERROR_TABLE[cause.code].trpc, message: cause.message, cause });
    }
    if (result.error.code === "INTERNAL_SERVER_ERROR" && !(cause instanceof ZodError)) {
      getLogger("trpc").error({ err: result.error.cause ?? result.error }, "unexpected error");
    }
  }
  return result;
}

/**
 * Refuses a NUL character or an unpaired surrogate anywhere in the input — every string value and object key, also
 * inside free-form fields the schemas leave to the services — and `__proto__` keys, as 400 INVALID_REQUEST naming
 * the field (PostgreSQL cannot store the first two: they were 500s; zod would drop the third silently). Runs after
 * authentication, like the schema validation it precedes. `meta.perItemInput` fields are checked by their service.
 */
const textGuardMiddleware = t.middleware(async ({ meta, getRawInput, next }) => {
  await guardText(meta, getRawInput);
  return next();
});

async function guardText(meta: Meta | undefined, getRawInput: () => Promise<unknown>): Promise<void> {
  const refused = findRefusedInput(await getRawInput(), { perItemKeys: meta?.perItemInput });
  if (refused) {
    throw new AppError("INVALID_REQUEST", `Invalid request: ${refused.path}: ${refused.message}`, { issues: [refused] });
  }
}

export const router = t.router;
export const createCallerFactory = t.createCallerFactory;
export const middleware = t.middleware;
export const publicProcedure = t.procedure.use(appErrorMiddleware);

/**
 * One authenticated procedure for both callers (STYLE 9): an API key (REST) or a dashboard session.
 * It puts the verified organization on ctx.auth; every service call is scoped by `ctx.auth.organizationId`.
 */
export const orgProcedure = t.procedure.use(async ({ ctx, meta, getRawInput, next }) => {
  // appErrorMiddleware, authentication and textGuardMiddleware in one middleware: each level of tRPC's chain copies
  // the call's options and context, which cost more than these checks on the API's hot read path. Behaviour is that
  // of the three: an AppError thrown here becomes the same TRPCError appErrorMiddleware would make of it.
  let auth: AuthContext;
  try {
    auth = await authenticate(ctx);
    await guardText(meta, getRawInput);
  } catch (error) {
    if (error instanceof AppError) throw new TRPCError({ code: ERROR_TABLE[error.code].trpc, message: error.message, cause: error });
    const internal = !(error instanceof TRPCError) || error.code === "INTERNAL_SERVER_ERROR";
    if (internal && !(error instanceof ZodError)) getLogger("trpc").error({ err: error instanceof TRPCError ? (error.cause ?? error) : error }, "unexpected error");
    throw error;
  }
  return settleResult(await next({ ctx: { ...ctx, auth } }), ctx, meta);
});

const roleRank: Record<MemberRole, number> = { member: 0, support: 1, admin: 2 };

/**
 * Requires a dashboard role. API keys act for the whole organization and pass role checks
 * unless `sessionOnly` is set (key management, members: never through a key).
 */
export function requireRole(role: MemberRole, options: { sessionOnly?: boolean } = {}) {
  return orgProcedure.use(({ ctx, next }) => {
    if (ctx.auth.actor.type === "apiKey") {
      if (options.sessionOnly) throw new AppError("FORBIDDEN", "This operation is only available to signed-in users.");
      return next();
    }
    if (roleRank[ctx.auth.actor.role] < roleRank[role]) {
      throw new AppError("FORBIDDEN", `This operation needs the ${role} role.`);
    }
    return next();
  });
}

/** Dashboard-only procedure that needs a signed-in user but no organization (org switcher, profile). */
export const sessionProcedure = publicProcedure
  .use(async ({ ctx, next }) => {
    const session = await ctx.getSession();
    if (!session) throw new AppError("UNAUTHORIZED", "Sign in first.");
    return next({ ctx: { ...ctx, session } });
  })
  .use(textGuardMiddleware);
