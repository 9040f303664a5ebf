import type { Db } from "@/db";

/** A signed-in dashboard user, with the organization they are acting in (verified membership). */
export type SessionActor = { userId: string; email: string; activeOrgId: string | null };

/** Mutable holder so procedures can set the HTTP status (201/202) and headers of the REST response. */
export type ResponseMetaHolder = { status?: number; headers: Record<string, string> };

export type Context = {
  db: Db;
  /** Raw `x-api-key` header (REST); null when absent. */
  apiKey: string | null;
  /** Resolves the dashboard session lazily; REST requests never have one. */
  getSession: () => Promise<SessionActor | null>;
  /** Headers of the incoming request (idempotency key, org switcher). */
  headers: Headers;
  resMeta: ResponseMetaHolder;
  now: () => Date;
  source: "rest" | "dashboard" | "internal";
};

export type CreateContextOptions = {
  db: Db;
  headers?: Headers;
  getSession?: () => Promise<SessionActor | null>;
  source: Context["source"];
  now?: () => Date;
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
  };
}
