import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { numberDailyStats, numbers } from "@/db/schema";
import { claimFictionalNumbers } from "@/server/services/numbers/claim-fictional-numbers";
import { getOpenApiDocument } from "@/server/trpc/openapi";
import { createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const api = apiClient(db);

const utcDay = (offsetDays: number) => new Date(Date.now() - offsetDays * 86_400_000).toISOString().slice(0, 10);

async function numberOf(organizationId: string) {
  const [phoneNumber] = await claimFictionalNumbers(db, { organizationId, count: 1 });
  const [row] = await db.select().from(numbers).where(eq(numbers.phoneNumber, phoneNumber!));
  return row!;
}

describe("GET /numbers/{numberId}/days: a number's daily calls and health", () => {
  it("returns one entry per UTC day of the period, with the number's counters and health; other organizations' numbers are not found", async () => {
    const a = await createTestOrganization(db);
    const b = await createTestOrganization(db);
    const number = await numberOf(a.organization.id);
    const restingUntil = new Date(Date.now() + 3 * 86_400_000);
    await db
      .update(numbers)
      .set({ health: "resting", healthReason: "answered 2 of 46 calls (4 %) against 39 % for your other numbers to the same places and hours", healthChangedAt: new Date(), restingUntil, dailyCallCap: 80 })
      .where(eq(numbers.id, number.id));
    await db.insert(numberDailyStats).values([
      { organizationId: a.organization.id, phoneNumber: number.phoneNumber, day: utcDay(0), placed: 12, answered: 3, shortCalls: 1, voicemail: 4, noAnswer: 2, busy: 1, failed: 2, optOuts: 1, stops: 2, attestationA: 5 },
      { organizationId: a.organization.id, phoneNumber: number.phoneNumber, day: utcDay(40), placed: 9, answered: 9 },
      // The same number's counters under another organization (it held the number before): never shown to A.
      { organizationId: b.organization.id, phoneNumber: number.phoneNumber, day: utcDay(1), placed: 50, answered: 40 },
    ]);

    const res = await api(`/numbers/${number.id}/days`, { key: a.apiKey });
    expect(res.status, res.text).toBe(200);
    expect(res.body).toMatchObject({
      numberId: number.id,
      phoneNumber: number.phoneNumber,
      health: { state: "resting", reason: expect.stringContaining("answered 2 of 46"), restingUntil: restingUntil.toISOString() },
      dailyCallCap: 80,
      inRotation: false,
    });
    expect(res.body.days).toHaveLength(30);
    expect(res.body.days[0].day).toBe(utcDay(29));
    expect(res.body.days[29]).toEqual({
      day: utcDay(0),
      placed: 12,
      answered: 3,
      shortCalls: 1,
      voicemail: 4,
      noAnswer: 2,
      busy: 1,
      failed: 2,
      optOuts: 1,
      stops: 2,
      attestation: { A: 5, B: 0, C: 0, none: 7 },
      answerRate: 0.3,
    });
    expect(res.body.days[28]).toMatchObject({ day: utcDay(1), placed: 0, answered: 0, answerRate: null });

    const longer = await api(`/numbers/${number.id}/days`, { key: a.apiKey, query: { days: 45 } });
    expect(longer.status, longer.text).toBe(200);
    expect(longer.body.days).toHaveLength(45);
    expect(longer.body.days.find((d: { day: string }) => d.day === utcDay(40))).toMatchObject({ placed: 9, answered: 9, answerRate: 1 });

    const other = await api(`/numbers/${number.id}/days`, { key: b.apiKey });
    expect(other.status).toBe(404);
    expect(other.body).toEqual({ error: "NUMBER_NOT_FOUND", message: expect.stringContaining(number.id) });
    expect((await api("/numbers/number.01jfczz8x3q4w5e6r7t8y9u0i1/days", { key: a.apiKey })).body.error).toBe("NUMBER_NOT_FOUND");
  });

  it("refuses a bad number ID or number of days with the field named, and documents the operation", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const number = await numberOf(organization.id);
    for (const days of ["0", "91", "abc", "1.5", ""]) {
      const res = await api(`/numbers/${number.id}/days`, { key: apiKey, query: { days } });
      expect(res.status, days).toBe(400);
      expect(res.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("days") });
    }
    const bad = await api("/numbers/number.x/days", { key: apiKey });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain("numberId");
    expect((await api(`/numbers/${number.id}/days`, {})).status).toBe(401);

    const doc = getOpenApiDocument() as unknown as { paths: Record<string, Record<string, { parameters: Array<{ name: string; in: string }>; responses: Record<string, { content?: Record<string, { schema: { examples?: unknown[] } }> }> }>> };
    const operation = doc.paths["/numbers/{numberId}/days"]?.get;
    expect(operation).toBeDefined();
    expect(operation!.parameters.map((p) => `${p.in}:${p.name}`).sort()).toEqual(["path:numberId", "query:days"]);
    expect(Object.keys(operation!.responses)).toEqual(expect.arrayContaining(["200", "400", "401", "404"]));
    expect(operation!.responses["200"]!.content!["application/json"]!.schema.examples?.[0]).toMatchObject({ health: { state: "resting" } });
  });
});
