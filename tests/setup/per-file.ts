import { inject } from "vitest";

// Code that reads DATABASE_URL (getDb) talks to the test cluster.
process.env.DATABASE_URL = inject("databaseUrl");
