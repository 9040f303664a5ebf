import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { sql } from "drizzle-orm";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { inngestRuns } from "@/db/schema/jobs";
import { inngest } from "@/inngest/client";
import { createMaterializeBulkBatchFunction } from "@/inngest/functions/materialize-bulk-batch";
import { createDispatchCallsFunction } from "@/inngest/functions/dispatch-calls";
import { useTestDb } from "../../helpers/db";
import { startTestInngest } from "../../helpers/inngest";
import { callsOf, createEngineOrganization, sequenceOf, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { patientApiClient } from "./helpers";

/** Enrollment and cancel through the real `/api/v1` handler, with the call engine's real functions on the runner. */
const db = useTestDb();
const HOUR = 3_600_000;
let engine: CallEngineHarness | null = null;

beforeAll(() => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "enrollment-engine-"));
});
afterEach(async () => {
  await engine?.stop();
  engine = null;
});

/** Dispatcher runs started by events naming any of these sequences (the events are batched: one run may carry many). */
async function dispatcherRunsFor(sequenceIds: string[]) {
  const rows = await db
    .select({ id: inngestRuns.id, events: inngestRuns.events, event: inngestRuns.event })
    .from(inngestRuns)
    .where(sql`${inngestRuns.functionId} = 'outbound-calling-dispatch-calls'`);
  return rows.filter((row) => JSON.stringify(row.events ?? row.event).match(new RegExp(sequenceIds.join("|"))));
}

describe("enrollment with the call engine", () => {
  it("a single enrollment wakes the dispatcher, which dials the call when due", async () => {
    engine = await startCallEngine(db, { start: new Date("2026-03-02T15:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db);
    const api = patientApiClient(db, { now: engine.clock.now });
    const res = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Ada", phoneNumber: "+12025550381", company_name: "Acme", crm_ref: "E-1", timezone: "America/New_York" },
    });
    expect(res.status).toBe(201);
    await engine.settle();
    const [call] = await callsOf(db, res.body.sequence.sequenceId);
    expect(engine.simulator.dialCount(call!.id)).toBe(1);
  });

  it("cancel by reference: the scheduled call is never dialed", async () => {
    engine = await startCallEngine(db, { start: new Date("2026-03-02T15:00:00Z") });
    const { apiKey, agent } = await createEngineOrganization(db);
    const api = patientApiClient(db, { now: engine.clock.now });
    const res = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Ada", phoneNumber: "+12025550391", company_name: "Acme", crm_ref: "E-2", timezone: "America/New_York", scheduledAt: "2026-03-02T17:00:00Z" },
    });
    const { sequenceId } = res.body.sequence;
    await engine.settle();
    expect((await callsOf(db, sequenceId))[0]!.resultType).toBe("Scheduled");

    const cancelled = await api("/sequences/cancel", { method: "POST", key: apiKey, body: { referenceKey: "crm_ref", referenceValue: "E-2" } });
    expect(cancelled.body).toEqual({ success: true });
    await engine.settle();
    await engine.advance(4 * HOUR);
    const [call] = await callsOf(db, sequenceId);
    expect(call!.resultType).toBe("Cancelled");
    expect(engine.simulator.dialCount(call!.id)).toBe(0);
    expect((await sequenceOf(db, sequenceId)).lifecycleStatus).toBe("cancelled");
  });

  it("a bulk enrollment's sequences are dialed by one dispatcher run woken by the materialization's events", async () => {
    // Event batches as in production (up to 1,000 events or 1 s): the three `sequence/started` make one run.
    engine = await startCallEngine(db, { start: new Date("2026-03-02T15:00:00Z"), eventBatchSize: 1000 });
    // A second runner in the engine's partition, with the engine's clock, runs the materialization; it also knows the
    // engine's dispatcher, so the `sequence/started` events it sends start a (batched) run the engine then executes.
    const materializer = await startTestInngest({
      db,
      clock: engine.clock,
      partition: engine.runner.partition,
      functions: [
        createMaterializeBulkBatchFunction(inngest, { getDb: () => db, now: engine.clock.now, chunkSize: 2 }),
        createDispatchCallsFunction(inngest, engine.deps),
      ],
    });
    try {
      const { apiKey, agent } = await createEngineOrganization(db);
      const api = patientApiClient(db, { now: engine.clock.now });
      const res = await api(`/agents/${agent.id}/schedule/sequences`, {
        method: "POST",
        key: apiKey,
        body: {
          timezone: "America/New_York",
          contacts: [0, 1, 2].map((i) => ({ name: `P${i}`, phoneNumber: `+1202555040${i + 1}`, company_name: "Acme" })),
        },
      });
      expect(res.status).toBe(202);
      await materializer.drain();
      await engine.settle();
      await engine.advance(1000); // the batch timeout
      await materializer.drain();
      await engine.settle();
      const ids = (await db.execute<{ id: string }>(sql`select id from sequences where batch_id = ${res.body.batchId} order by batch_index`)).map((row) => row.id);
      expect(ids).toHaveLength(3);
      expect((await dispatcherRunsFor(ids)).length).toBe(1);
      for (const id of ids) {
        const [call] = await callsOf(db, id);
        expect(engine.simulator.dialCount(call!.id)).toBe(1);
      }
    } finally {
      await materializer.stop();
    }
  });
});

