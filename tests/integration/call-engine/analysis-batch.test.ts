import { inArray } from "drizzle-orm";
import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import { afterAll, describe, expect, inject, it } from "vitest";
import type { Db } from "@/db";
import * as schema from "@/db/schema";
import { calls } from "@/db/schema";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import { analyzeAndFinalizeCalls } from "@/server/services/call-engine/process-ended-calls";
import { useTestDb } from "@/tests/helpers/db";
import { createEngineOrganization, enroll } from "./harness";

const db = useTestDb();

// A second connection whose statements are listed (postgres.js's `debug` hook): what one analysis batch asks.
const statements: string[] = [];
const counting = postgres(inject("databaseUrl"), { max: 4, onnotice: () => {}, debug: (_connection, query) => statements.push(query) });
const countedDb = drizzle(counting, { schema }) as unknown as Db;
afterAll(() => counting.end({ timeout: 5 }));

describe("call engine: one analysis batch", () => {
  it("reads the agent's extraction definitions and outcomes once for the batch, not once per call (issue 38)", async () => {
    const now = new Date("2026-03-02T15:00:00Z");
    const { agent } = await createEngineOrganization(db);
    const callIds: string[] = [];
    for (let i = 0; i < 4; i++) {
      const created = await enroll(db, { agent, phoneNumber: `+1202555018${i}`, now, withoutRunner: true });
      callIds.push(created.firstCall!.callId);
    }
    // Ended calls waiting for their analysis (a voicemail each), as `call.ended` leaves them.
    await db
      .update(calls)
      .set({ resultType: "Processing Analysis", disposition: "voicemail", duration: 20, dialedAt: now, endedAt: now, transcript: "Agent: Hello, this is a message." })
      .where(inArray(calls.id, callIds));

    statements.length = 0;
    await analyzeAndFinalizeCalls(countedDb, { callIds, analyzer: ruleBasedAnalyzer, now });

    const rows = await db.select({ id: calls.id, resultType: calls.resultType }).from(calls).where(inArray(calls.id, callIds));
    expect(rows.map((row) => row.resultType)).toEqual(callIds.map(() => "Voicemail"));
    const reads = (table: string) => statements.filter((query) => new RegExp(`^select .* from "${table}"`, "i").test(query.trim())).length;
    expect(reads("extracted_variable_definitions")).toBe(1);
    expect(reads("outcome_definitions")).toBe(1);
  });
});
