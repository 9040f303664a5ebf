import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bulkBatches, calls, sequences } from "@/db/schema";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { addOptOut, callStep, patientApiClient, setupEnrollment } from "./helpers";

const db = useTestDb();
const NOW = new Date("2026-11-24T15:00:00Z");
const api = patientApiClient(db, { now: () => NOW });

type Contact = Record<string, unknown>;
const person = (i: number, extra: Contact = {}): Contact => ({
  name: `Contact ${i}`,
  phoneNumber: `+1415555${String(1000 + i).padStart(4, "0")}`,
  company_name: `Company ${i}`,
  ...extra,
});

const preview = (key: string, agentId: string, body: unknown) => api(`/agents/${agentId}/schedule/sequences/preview`, { method: "POST", key, body });
const bulk = (key: string, agentId: string, body: unknown) => api(`/agents/${agentId}/schedule/sequences`, { method: "POST", key, body });

async function writtenBy(organizationId: string) {
  const [sequenceRows, callRows, batchRows] = await Promise.all([
    db.select({ id: sequences.id }).from(sequences).where(eq(sequences.organizationId, organizationId)),
    db.select({ id: calls.id }).from(calls).where(eq(calls.organizationId, organizationId)),
    db.select({ id: bulkBatches.id }).from(bulkBatches).where(eq(bulkBatches.organizationId, organizationId)),
  ]);
  return { sequences: sequenceRows.length, calls: callRows.length, batches: batchRows.length };
}

describe("POST /agents/{agentId}/schedule/sequences/preview", () => {
  it("makes the decisions a following bulk enrollment makes on a mixed batch, writing nothing", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db, {
      agent: { steps: [callStep({ delaySeconds: 60, delaySecondsMax: 3600 }), callStep({ delaySeconds: 86_400 })] },
    });
    await addOptOut(db, organization.id, "+14155551004");
    const contacts = [
      person(0),
      person(1, { phoneNumber: "not a number" }),
      person(2, { name: undefined }),
      person(3, { company_name: undefined }),
      person(4, { phoneNumber: "(415) 555-1004" }), // suppressed
      person(5, { phoneNumber: "415.555.1000" }), // duplicate of 0
      person(6, { timezone: "Mars/Base" }),
      person(7, { scheduledAt: "2026-11-20T10:00:00Z" }), // in the past
      person(8, { toEmailAddress: "eight@example.com" }),
      person(9, { bypassCallWindows: true }),
    ];
    const previewed = await preview(apiKey, agent.id, { contacts });
    expect(previewed.status, previewed.text).toBe(200);
    expect(await writtenBy(organization.id)).toEqual({ sequences: 0, calls: 0, batches: 0 });
    expect(previewed.body.total).toBe(10);
    expect(previewed.body.accepted).toBe(3);
    expect(previewed.body.rejected.map((r: { index: number; reason: string }) => [r.index, r.reason])).toEqual([
      [1, "INVALID_PHONE_NUMBER"],
      [2, "MISSING_NAME"],
      [3, "MISSING_INPUT_VARIABLE"],
      [4, "OPTED_OUT"],
      [5, "DUPLICATE_PHONE_NUMBER"],
      [6, "INVALID_TIMEZONE"],
      [7, "INVALID_SCHEDULED_AT"],
    ]);
    // Windows always open: the first call is due after the first step's delay, 60 s to 3,600 s.
    expect(previewed.body.firstCallAt).toEqual({ earliest: "2026-11-24T15:01:00.000Z", latest: "2026-11-24T16:00:00.000Z" });
    expect(previewed.body.credits).toEqual({ required: 3, remaining: 5000, sufficient: true });

    const enrolled = await bulk(apiKey, agent.id, { contacts });
    expect(enrolled.status, enrolled.text).toBe(202);
    expect({ total: enrolled.body.total, accepted: enrolled.body.accepted, rejected: enrolled.body.rejected }).toEqual({
      total: previewed.body.total,
      accepted: previewed.body.accepted,
      rejected: previewed.body.rejected,
    });
    await materializeBulkBatch(db, { batchId: enrolled.body.batchId, now: NOW });
    const firstCalls = await db.select({ scheduledAt: calls.scheduledAt }).from(calls).where(eq(calls.organizationId, organization.id));
    expect(firstCalls).toHaveLength(3);
    for (const call of firstCalls) {
      expect(call.scheduledAt.getTime()).toBeGreaterThanOrEqual(new Date(previewed.body.firstCallAt.earliest).getTime());
      expect(call.scheduledAt.getTime()).toBeLessThanOrEqual(new Date(previewed.body.firstCallAt.latest).getTime());
    }
  });

  it("answers 200 where bulk enrollment would refuse the whole batch: no valid contact, not enough credits", async () => {
    const { apiKey, agent } = await setupEnrollment(db, { credits: 1 });
    const none = await preview(apiKey, agent.id, { contacts: [person(0, { name: undefined })] });
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ total: 1, accepted: 0, firstCallAt: { earliest: null, latest: null }, credits: { required: 0, sufficient: true } });
    expect((await bulk(apiKey, agent.id, { contacts: [person(0, { name: undefined })] })).body.error).toBe("NO_VALID_CONTACTS");

    const two = { contacts: [person(0), person(1)] };
    const short = await preview(apiKey, agent.id, two);
    expect(short.status).toBe(200);
    expect(short.body.credits).toEqual({ required: 2, remaining: 1, sufficient: false });
    expect((await bulk(apiKey, agent.id, two)).status).toBe(402);
  });

  it("leaves contacts that would wait in a chain out of firstCallAt", async () => {
    const { apiKey, agent } = await setupEnrollment(db, { agent: { steps: [callStep({ delaySeconds: 120 })] } });
    const body = { groupByField: "company_name", contacts: [person(0, { company_name: "Acme" }), person(1, { company_name: "Acme", scheduledAt: "2026-11-30T15:00:00Z" })] };
    const res = await preview(apiKey, agent.id, body);
    expect(res.body.accepted).toBe(2);
    expect(res.body.firstCallAt).toEqual({ earliest: "2026-11-24T15:02:00.000Z", latest: "2026-11-24T15:02:00.000Z" });
  });

  it("refuses bad bodies like bulk enrollment, and another organization's agent is not found", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const tooMany = await preview(apiKey, agent.id, { contacts: Array.from({ length: 1001 }, (_, i) => person(i)) });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("contacts") });
    expect((await preview(apiKey, agent.id, { contacts: [] })).status).toBe(400);
    expect((await preview(apiKey, agent.id, { contacts: [person(0)], timezone: "Mars/Base" })).body.error).toBe("INVALID_TIMEZONE");
    expect((await preview(apiKey, agent.id, { contacts: [person(0)], groupByField: "company_name", allowDuplicates: true })).body.error).toBe("INVALID_REQUEST");

    const other = await createTestOrganization(db);
    const foreign = await preview(other.apiKey, agent.id, { contacts: [person(0)] });
    expect(foreign.status).toBe(404);
    expect(foreign.body.error).toBe("AGENT_NOT_FOUND");
  });
});
