import { eq, inArray } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { bulkBatches, calls, sequences } from "@/db/schema";
import { seedEnrollments } from "@/server/services/enrollment/seed-enrollments";
import { createTestAgent } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { patientApiClient, setupEnrollment } from "./helpers";

const db = useTestDb();
const api = patientApiClient(db);

describe("seedEnrollments (demo data)", () => {
  it("creates enrollments in several states through the enrollment rules", async () => {
    const { organization, agent, apiKey } = await setupEnrollment(db);
    const paused = await createTestAgent(db, organization.id, { status: "PAUSED", inputVariables: [{ slug: "company_name", required: true }] });
    const now = new Date();
    const seeded = await seedEnrollments(db, { organizationId: organization.id, agentId: agent.id, pausedAgentId: paused.id, now });

    const rows = await db.select().from(sequences).where(eq(sequences.organizationId, organization.id));
    const byId = new Map(rows.map((row) => [row.id, row]));
    for (const id of seeded.scheduledSequenceIds) expect(byId.get(id)).toMatchObject({ lifecycleStatus: "in progress", scheduledBy: "api" });
    expect(byId.get(seeded.chain.activeSequenceId)!.chainStatus).toBe("active");
    expect(seeded.chain.waitingSequenceIds.map((id) => byId.get(id)!.chainStatus)).toEqual(["waiting", "waiting"]);
    for (const id of seeded.cancelledSequenceIds) expect(byId.get(id)!.lifecycleStatus).toBe("cancelled");
    expect(byId.get(seeded.pausedAgentSequenceId!)!.agentId).toBe(paused.id);
    const [batch] = await db.select().from(bulkBatches).where(eq(bulkBatches.id, seeded.batchId));
    expect(batch).toMatchObject({ status: "completed", accepted: 2, total: 3 });
    expect((batch!.response as { rejected: Array<{ reason: string }> }).rejected.map((r) => r.reason)).toEqual(["DUPLICATE_PHONE_NUMBER"]);

    const seededCalls = await db.select().from(calls).where(inArray(calls.sequenceId, rows.map((row) => row.id)));
    const resultsBySequence = new Map(seededCalls.map((call) => [call.sequenceId, call]));
    for (const id of seeded.scheduledSequenceIds) {
      const call = resultsBySequence.get(id)!;
      expect(call.resultType).toBe("Scheduled");
      expect(call.scheduledAt.getTime()).toBeGreaterThan(now.getTime());
    }
    for (const id of seeded.cancelledSequenceIds) expect(resultsBySequence.get(id)!.resultType).toBe("Cancelled");
    for (const id of seeded.chain.waitingSequenceIds) expect(resultsBySequence.has(id)).toBe(false);

    const refused = await api(`/agents/${agent.id}/schedule/sequence`, {
      method: "POST",
      key: apiKey,
      body: { name: "Someone", phoneNumber: seeded.optedOutNumber, company_name: "X" },
    });
    expect(refused.status).toBe(409);
  });
});
