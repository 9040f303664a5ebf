import { drizzle, type PostgresJsDatabase } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { getConfig } from "@/server/config/env";
import { onShutdown } from "@/server/runtime/lifecycle";
import * as schema from "./schema";
import { processSingleton } from "@/server/runtime/process-singleton";

export type Db = PostgresJsDatabase<typeof schema>;
export type Tx = Parameters<Parameters<Db["transaction"]>[0]>[0];
/** Anything a query can run on: the database or an open transaction. */
export type DbOrTx = Db | Tx;

export type DbHandle = { db: Db; sql: postgres.Sql; close: () => Promise<void> };

export function createDb(url: string, options: { max?: number } = {}): DbHandle {
  const sql = postgres(url, { max: options.max ?? 10, onnotice: () => {}, prepare: true });
  const db = drizzle(sql, { schema, casing: undefined });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}

const cache = () => processSingleton("appDb", () => ({ handle: undefined as DbHandle | undefined }));

/**
 * The app's connection, created once per process (server/runtime/process-singleton.ts: every module copy and dev
 * hot reload share one pool),
 * closed on shutdown after the requests and background steps that use it have finished.
 */
export function getDbHandle(): DbHandle {
  const app = cache();
  if (!app.handle) {
    const { DATABASE_URL: url, DATABASE_POOL_SIZE: max } = getConfig();
    if (!url) throw new Error("DATABASE_URL is not set: start the app with `npm start` (embedded Postgres) or set it.");
    const handle = createDb(url, { max });
    app.handle = handle;
    onShutdown("database-pool", "connections", async () => {
      if (app.handle === handle) app.handle = undefined;
      await handle.close();
    });
  }
  return app.handle;
}

export function getDb(): Db {
  return getDbHandle().db;
}

export { schema };
