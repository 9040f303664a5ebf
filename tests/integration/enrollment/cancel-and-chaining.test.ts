import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls, sequences } from "@/db/schema";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { activateNextChainedContact } from "@/server/services/sequences/activate-next-chained-contact";
import { useTestDb } from "../../helpers/db";
import { findCalls, findSequence, patientApiClient, setupEnrollment } from "./helpers";

const db = useTestDb();
const api = patientApiClient(db);

let counter = 0;
function contact(extra: Record<string, unknown> = {}) {
  counter += 1;
  return { name: `Person ${counter}`, phoneNumber: `+1303555${String(2000 + counter).padStart(4, "0")}`, company_name: "Acme", ...extra };
}

async function enroll(key: string, agentId: string, body: Record<string, unknown>): Promise<string> {
  const res = await api(`/agents/${agentId}/schedule/sequence`, { method: "POST", key, body });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId;
}

function cancel(key: string, body: unknown) {
  return api("/sequences/cancel", { method: "POST", key, body });
}

async function setStatus(sequenceId: string, lifecycleStatus: "done" | "failed" | "cancelled") {
  await db.update(sequences).set({ lifecycleStatus }).where(eq(sequences.id, sequenceId));
}

describe("POST /sequences/cancel", () => {
  it("cancels the matching in-progress sequences and their pending calls, nothing else", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const a = await enroll(apiKey, agent.id, contact({ crm_ref: "deal-1" }));
    const b = await enroll(apiKey, agent.id, contact({ customVariables: { crm_ref: "deal-1" } }));
    const other = await enroll(apiKey, agent.id, contact({ crm_ref: "deal-2" }));
    const bulk = await api(`/agents/${agent.id}/schedule/sequences`, {
      method: "POST",
      key: apiKey,
      body: { contacts: [contact({ crm_ref: "deal-1" }), contact({ crm_ref: "deal-10" })] },
    });
    await materializeBulkBatch(db, { batchId: bulk.body.batchId });
    const fromBulk = await db.select().from(sequences).where(eq(sequences.batchId, bulk.body.batchId));

    const res = await cancel(apiKey, { referenceKey: "crm_ref", referenceValue: "deal-1" });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });

    const cancelledIds = [a, b, fromBulk.find((s) => s.batchIndex === 0)!.id];
    for (const id of cancelledIds) {
      const row = await findSequence(db, id);
      expect(row!.lifecycleStatus).toBe("cancelled");
      expect(row!.endedAt).not.toBeNull();
      expect((await findCalls(db, id)).map((c) => c.resultType)).toEqual(["Cancelled"]);
    }
    for (const id of [other, fromBulk.find((s) => s.batchIndex === 1)!.id]) {
      expect((await findSequence(db, id))!.lifecycleStatus).toBe("in progress");
      expect((await findCalls(db, id)).map((c) => c.resultType)).toEqual(["Scheduled"]);
    }
  });

  it("skips done, failed and cancelled sequences, leaves calls in flight alone, and is idempotent", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const ids = await Promise.all([0, 1, 2, 3].map(() => enroll(apiKey, agent.id, contact({ crm_ref: "same" }))));
    await setStatus(ids[0]!, "done");
    await setStatus(ids[1]!, "failed");
    await setStatus(ids[2]!, "cancelled");
    await db.update(calls).set({ resultType: "Calling" }).where(eq(calls.sequenceId, ids[3]!));
    const before = await db.select().from(sequences).where(inArray(sequences.id, ids.slice(0, 3)));

    expect((await cancel(apiKey, { referenceKey: "crm_ref", referenceValue: "same" })).body).toEqual({ success: true });
    const after = await db.select().from(sequences).where(inArray(sequences.id, ids.slice(0, 3)));
    expect(after.map((s) => [s.id, s.lifecycleStatus, s.updatedAt.getTime()]).sort()).toEqual(
      before.map((s) => [s.id, s.lifecycleStatus, s.updatedAt.getTime()]).sort(),
    );
    expect((await findSequence(db, ids[3]!))!.lifecycleStatus).toBe("cancelled");
    expect((await findCalls(db, ids[3]!))[0]!.resultType).toBe("Calling");

    const cancelledAt = (await findSequence(db, ids[3]!))!.updatedAt;
    expect((await cancel(apiKey, { referenceKey: "crm_ref", referenceValue: "same" })).body).toEqual({ success: true });
    expect((await findSequence(db, ids[3]!))!.updatedAt).toEqual(cancelledAt);
  });

  it("returns success when nothing matches and 400 when a field is missing", async () => {
    const { apiKey } = await setupEnrollment(db);
    expect((await cancel(apiKey, { referenceKey: "crm_ref", referenceValue: "nothing" })).body).toEqual({ success: true });
    for (const body of [{}, { referenceKey: "crm_ref" }, { referenceValue: "x" }, { referenceKey: "", referenceValue: "x" }, { referenceKey: "k", referenceValue: 5 }]) {
      const res = await cancel(apiKey, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error).toBe("INVALID_REQUEST");
    }
    expect((await api("/sequences/cancel", { method: "POST", body: { referenceKey: "a", referenceValue: "b" } })).status).toBe(401);
  });

  it("never touches another organization's sequences", async () => {
    const mine = await setupEnrollment(db);
    const theirs = await setupEnrollment(db);
    const myId = await enroll(mine.apiKey, mine.agent.id, contact({ crm_ref: "shared-ref" }));
    const theirId = await enroll(theirs.apiKey, theirs.agent.id, contact({ crm_ref: "shared-ref" }));
    const theirCallsBefore = await findCalls(db, theirId);
    expect((await cancel(mine.apiKey, { referenceKey: "crm_ref", referenceValue: "shared-ref" })).body).toEqual({ success: true });
    expect((await findSequence(db, myId))!.lifecycleStatus).toBe("cancelled");
    expect((await findSequence(db, theirId))!.lifecycleStatus).toBe("in progress");
    expect(await findCalls(db, theirId)).toEqual(theirCallsBefore);
  });

  it("cancels waiting chained contacts too, and hands over when only the active one is cancelled", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const chained = (extra: Record<string, unknown>) => contact({ groupByField: "account", account: "ACC-1", ...extra });
    const first = await enroll(apiKey, agent.id, chained({ crm_ref: "p1" }));
    const second = await enroll(apiKey, agent.id, chained({ crm_ref: "p2", team: "t" }));
    const third = await enroll(apiKey, agent.id, chained({ crm_ref: "p3", team: "t" }));
    expect((await findSequence(db, second))!.chainStatus).toBe("waiting");

    // cancelling the waiting ones by a shared variable
    await cancel(apiKey, { referenceKey: "team", referenceValue: "t" });
    expect((await findSequence(db, second))!.lifecycleStatus).toBe("cancelled");
    expect((await findSequence(db, third))!.lifecycleStatus).toBe("cancelled");
    expect((await findSequence(db, first))!.lifecycleStatus).toBe("in progress");

    // a new waiting contact, then the active one is cancelled: the next one takes over
    const fourth = await enroll(apiKey, agent.id, chained({ crm_ref: "p4" }));
    expect((await findSequence(db, fourth))!.chainStatus).toBe("waiting");
    expect(await findCalls(db, fourth)).toHaveLength(0);
    await cancel(apiKey, { referenceKey: "crm_ref", referenceValue: "p1" });
    const handedOver = await findSequence(db, fourth);
    expect(handedOver).toMatchObject({ chainStatus: "active", chainActivatedBy: first, lifecycleStatus: "in progress" });
    expect((await findCalls(db, fourth)).map((c) => c.resultType)).toEqual(["Scheduled"]);
  });
});

describe("contact chaining: activateNextChainedContact", () => {
  it("schedules the group's waiting contacts one by one, in order, each hand-over once", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const chained = (extra: Record<string, unknown> = {}) => contact({ groupByField: "company_name", company_name: "Globex", ...extra });
    const ids = [];
    for (let i = 0; i < 4; i += 1) ids.push(await enroll(apiKey, agent.id, chained()));
    const solo = await enroll(apiKey, agent.id, contact({ company_name: "Globex" })); // no groupByField: not chained
    const elsewhere = await enroll(apiKey, agent.id, chained({ company_name: "Initech" }));

    const rows = await Promise.all(ids.map((id) => findSequence(db, id)));
    expect(rows.map((r) => [r!.chainPosition, r!.chainStatus, r!.groupKey])).toEqual([
      [1, "active", "company_name=Globex"],
      [2, "waiting", "company_name=Globex"],
      [3, "waiting", "company_name=Globex"],
      [4, "waiting", "company_name=Globex"],
    ]);
    expect((await findSequence(db, elsewhere))!.chainStatus).toBe("active");
    expect((await findSequence(db, solo))!.chainStatus).toBeNull();
    expect(await findCalls(db, ids[1]!)).toHaveLength(0);

    // the third waits no more (cancelled), so the order is 1 → 2 → 4
    await db.update(sequences).set({ lifecycleStatus: "cancelled" }).where(eq(sequences.id, ids[2]!));

    const now = new Date();
    const first = await activateNextChainedContact(db, { sequenceId: ids[0]!, now });
    expect(first).toMatchObject({ newlyActivated: true, activated: { sequenceId: ids[1] } });
    const activatedCalls = await findCalls(db, ids[1]!);
    expect(activatedCalls).toHaveLength(1);
    expect(activatedCalls[0]).toMatchObject({ id: first.activated!.callId, resultType: "Scheduled", stepNumber: 1, promptVersionId: agent.currentPromptVersionId });
    expect(await findSequence(db, ids[1]!)).toMatchObject({ chainStatus: "active", chainActivatedBy: ids[0] });

    // retried hand-over: same answer, nothing new
    const again = await activateNextChainedContact(db, { sequenceId: ids[0]!, now });
    expect(again).toEqual({ newlyActivated: false, activated: first.activated });
    expect((await findSequence(db, ids[3]!))!.chainStatus).toBe("waiting");

    const second = await activateNextChainedContact(db, { sequenceId: ids[1]!, now });
    expect(second.activated!.sequenceId).toBe(ids[3]);
    const last = await activateNextChainedContact(db, { sequenceId: ids[3]!, now });
    expect(last).toEqual({ activated: null, newlyActivated: false });
    expect(await activateNextChainedContact(db, { sequenceId: solo, now })).toEqual({ activated: null, newlyActivated: false });
    expect(await activateNextChainedContact(db, { sequenceId: elsewhere, now })).toEqual({ activated: null, newlyActivated: false });
  });

  it("keeps a waiting contact's own future scheduledAt when it is activated", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const chained = (extra: Record<string, unknown> = {}) => contact({ groupByField: "account", account: "X", ...extra });
    const head = await enroll(apiKey, agent.id, chained());
    const later = new Date(Date.now() + 3 * 86_400_000);
    later.setUTCMilliseconds(0);
    const waiting = await enroll(apiKey, agent.id, chained({ scheduledAt: later.toISOString() }));
    const res = await activateNextChainedContact(db, { sequenceId: head });
    expect(res.activated).toMatchObject({ sequenceId: waiting, scheduledAt: later });
  });

  it("chains concurrent single enrollments into one order with one active contact", async () => {
    const { organization, agent } = await setupEnrollment(db);
    const { createApiKey } = await import("@/server/services/api-keys/manage-api-keys");
    const keys = await Promise.all([0, 1, 2].map((i) => createApiKey(db, { organizationId: organization.id, name: `k${i}` })));
    const results = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: keys[i % 3]!.key, body: contact({ groupByField: "account", account: "RACE" }) }),
      ),
    );
    expect(results.map((r) => r.status)).toEqual(Array(12).fill(201));
    const rows = await db.select().from(sequences).where(eq(sequences.agentId, agent.id));
    expect(rows.filter((r) => r.chainStatus === "active")).toHaveLength(1);
    expect(rows.map((r) => r.chainPosition).sort((a, b) => a! - b!)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });
});
