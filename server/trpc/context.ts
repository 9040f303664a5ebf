import type { Db } from "@/db";
import type { AuthContext, AuthRequest } from "../auth/authenticate";
import type { SessionActor } from "../auth/session-actor";

/**
 * What procedures read of the request's headers (a fetch `Headers` is one). The REST edge passes a view over the
 * headers Node already parsed instead of copying them into a `Headers` object on every API request.
 */
export type RequestHeaders = { get: (name: string) => string | null };

/** Mutable holder so procedures can set the HTTP status (201/202) and headers of the REST response. */
export type ResponseMetaHolder = { status?: number; headers: Record<string, string> };

export type Context = {
  db: Db;
  /** Raw `x-api-key` header (REST); null when absent. */
  apiKey: string | null;
  /** Resolves the dashboard session lazily; REST requests never have one. */
  getSession: () => Promise<SessionActor | null>;
  /** Headers of the incoming request (idempotency key, org switcher). */
  headers: RequestHeaders;
  resMeta: ResponseMetaHolder;
  now: () => Date;
  source: AuthRequest["source"];
  /**
   * REST: the organization the `/api/v1` edge verified for this request's key moments before (it must, to rate-limit
   * by key); authenticate() returns it instead of checking the same key a second time.
   */
  verified?: AuthContext;
};

export type CreateContextOptions = {
  db: Db;
  headers?: RequestHeaders;
  getSession?: () => Promise<SessionActor | null>;
  source: Context["source"];
  now?: () => Date;
  verified?: AuthContext;
};

export function createContext(options: CreateContextOptions): Context {
  const headers = options.headers ?? new Headers();
  return {
    db: options.db,
    apiKey: options.source === "rest" ? headers.get("x-api-key") : null,
    getSession: options.getSession ?? (async () => null),
    headers,
    resMeta: { headers: {} },
    now: options.now ?? (() => new Date()),
    source: options.source,
    ...(options.verified && options.source === "rest" ? { verified: options.verified } : {}),
  };
}
