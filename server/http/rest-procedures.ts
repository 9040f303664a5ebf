import { TRPCError } from "@trpc/server";
import { getErrorShape, type AnyProcedure } from "@trpc/server/unstable-core-do-not-import";
import {
  acceptsRequestBody,
  coerceSchema,
  forEachOpenApiProcedure,
  getInputOutputParsers,
  getPathRegExp,
  instanceofZodTypeLikeVoid,
  instanceofZodTypeObject,
  instanceofZodTypeOptional,
  normalizePath,
  unwrapZodType,
  zodSupportsCoerce,
  type OpenApiMethod,
  type OpenApiProcedureRecord,
} from "trpc-to-openapi";
import { ZodArray, type ZodObject, type ZodRawShape } from "zod";
import type { Context } from "../trpc/context";
import type { Meta } from "../trpc/init";
import { appRouter } from "../trpc/root";

/**
 * The `/api/v1` routes and how a request reaches its procedure — what trpc-to-openapi's node handler does on every
 * request, resolved once per route instead: the routes are the procedures' `meta.openapi` read with the library's
 * own helpers (the same list, order, path patterns and input schema it uses, so the library stays the routing truth
 * as it is the OpenAPI document's), and a request's input is built as its handler builds it (query string or JSON
 * body, path parameters over them, repeated query keys for array fields, string coercion of number / boolean / date
 * fields). The procedure is then called as tRPC's caller calls it (same middlewares, input and output validation).
 *
 * What the handler did per request and this does once: normalizing and compiling the templates, scanning them as a
 * list of regular expressions, unwrapping and walking the input schema (its coercion flags are set once per route,
 * at the route's first request, as the handler would have), parsing the URL, a caller proxy per request. Its error
 * body (tRPC's error shape with the code and message) is handed back as an object, not serialized and parsed again.
 */

export type RestRoute = {
  method: OpenApiMethod;
  /** Normalized (`/agents/{agentId}/outcomes`): what logs, metrics and body limits name. */
  template: string;
  /** The library's pattern: one named group per `{param}`, case-insensitive. */
  pattern: RegExp;
  procedurePath: string;
  procedure: AnyProcedure;
  type: "query" | "mutation";
  /** False for a `z.void()`-like input: the procedure gets `undefined`. */
  takesInput: boolean;
  /** The unwrapped input object whose number / boolean / bigint / date fields take strings (query, path). */
  coercible: ZodObject<ZodRawShape> | null;
  /** Query keys that are arrays in the schema: a single value is wrapped. */
  arrayKeys: string[];
  coerced: boolean;
};

let routesByMethod: Map<string, RestRoute[]> | undefined;

function buildRoutes(): Map<string, RestRoute[]> {
  const byMethod = new Map<string, RestRoute[]>();
  forEachOpenApiProcedure<Meta>(appRouter._def.procedures as unknown as OpenApiProcedureRecord, ({ path: procedurePath, procedure, meta }) => {
    const type = procedure._def.type;
    if (type === "subscription") return;
    const { openapi } = meta;
    const template = normalizePath(openapi.path);
    const { inputParser } = getInputOutputParsers(procedure);
    const unwrapped = unwrapZodType(inputParser, true);
    const object = instanceofZodTypeObject(unwrapped) ? (unwrapped as unknown as ZodObject<ZodRawShape>) : null;
    const arrayKeys = object
      ? Object.entries(object.shape)
          .filter(([, shape]) => shape instanceof ZodArray || (instanceofZodTypeOptional(shape) && shape.unwrap() instanceof ZodArray))
          .map(([key]) => key)
      : [];
    const route: RestRoute = {
      method: openapi.method,
      template,
      pattern: getPathRegExp(template),
      procedurePath,
      procedure: procedure as unknown as AnyProcedure,
      type,
      takesInput: !instanceofZodTypeLikeVoid(unwrapped),
      coercible: zodSupportsCoerce ? object : null,
      arrayKeys,
      coerced: false,
    };
    const list = byMethod.get(route.method) ?? [];
    list.push(route);
    byMethod.set(route.method, list);
  });
  return byMethod;
}

/** The route trpc-to-openapi would pick for this method and path (below /api/v1): the first whose pattern matches. */
export function findRestRoute(method: string, path: string): RestRoute | undefined {
  routesByMethod ??= buildRoutes();
  const routes = routesByMethod.get(method);
  if (!routes) return undefined;
  const normalized = normalizePath(path);
  for (const route of routes) if (route.pattern.test(normalized)) return route;
  return undefined;
}

/** tRPC's error body as trpc-to-openapi's handler wrote it (before JSON), read by the `/api/v1` error mapping. */
export type RestErrorBody = {
  message?: string;
  code?: string;
  data?: { appCode?: string; message?: string; details?: Record<string, unknown> };
};

export type RestOutcome =
  | { ok: true; status: number; headers: Record<string, string>; body: string | null }
  | { ok: false; error: RestErrorBody };

export type RestCall = {
  /** The request's method (`DELETE` takes its input from the query string, as the library does). */
  method: string;
  /** The canonical path below /api/v1. */
  path: string;
  /** `?…` as received, or "". */
  search: string;
  /** The parsed JSON object of a request with a body. */
  body: Record<string, unknown> | undefined;
};

/** Calls `route`'s procedure with the request's input, as trpc-to-openapi's node handler would have. */
export async function callRestProcedure(route: RestRoute, call: RestCall, makeContext: () => Context): Promise<RestOutcome> {
  let input: Record<string, unknown> | undefined;
  let ctx: Context | undefined;
  try {
    if (route.takesInput) {
      const pathInput = route.pattern.exec(normalizePath(call.path))?.groups ?? {};
      const usesBody = acceptsRequestBody(call.method as OpenApiMethod);
      input = { ...(usesBody ? call.body : queryInput(call.search)), ...pathInput };
      if (route.coercible) {
        if (!usesBody) {
          for (const key of route.arrayKeys) if (input[key] !== undefined && !Array.isArray(input[key])) input[key] = [input[key]];
        }
        if (!route.coerced) {
          coerceSchema(route.coercible);
          route.coerced = true;
        }
      }
    }
    ctx = makeContext();
    const data: unknown = await route.procedure({ path: route.procedurePath, getRawInput: async () => input, ctx, type: route.type, signal: undefined, batchIndex: 0 });
    const headers: Record<string, string> = { "content-type": "application/json" };
    for (const key in ctx.resMeta.headers) {
      const value = ctx.resMeta.headers[key];
      if (value !== undefined) headers[key.toLowerCase()] = value;
    }
    return { ok: true, status: ctx.resMeta.status ?? 200, headers, body: data === undefined ? null : JSON.stringify(data) };
  } catch (cause) {
    const error =
      cause instanceof Error && cause.name === "TRPCError"
        ? (cause as TRPCError)
        : new TRPCError({ code: "INTERNAL_SERVER_ERROR", message: "Internal server error", cause: cause instanceof Error ? cause : undefined });
    const shape = getErrorShape({ config: appRouter._def._config, error, type: route.type, path: route.procedurePath, input, ctx });
    return { ok: false, error: { message: shape.message ?? error.message, code: error.code, data: shape.data } };
  }
}

/**
 * The query string as the library reads it: `URLSearchParams` decoding (`+` is a space), a key given once is a
 * string and repeated keys an array. Any key is a plain input key (a `__proto__` one then meets the text guard's
 * refusal; the library's own reader failed on keys of Object.prototype such as `constructor` with a 500).
 */
function queryInput(search: string): Record<string, unknown> {
  const query: Record<string, unknown> = {};
  if (search.length <= 1) return query;
  const fragmentAt = search.indexOf("#");
  const values = new Map<string, string[]>();
  new URLSearchParams(fragmentAt < 0 ? search : search.slice(0, fragmentAt)).forEach((value, key) => {
    const list = values.get(key);
    if (list) list.push(value);
    else values.set(key, [value]);
  });
  for (const [key, list] of values) Object.defineProperty(query, key, { value: list.length === 1 ? list[0] : list, enumerable: true, writable: true, configurable: true });
  return query;
}
