import { afterAll } from "vitest";
import { inject } from "vitest";
import { createDb, type Db } from "@/db";

/** A connection to the test cluster for this file, closed after it. */
export function useTestDb(): Db {
  const handle = createDb(inject("databaseUrl"), { max: 5 });
  afterAll(() => handle.close());
  return handle.db;
}
