import { describe, expect, it } from "vitest";
import { calls, sequences } from "@/db/schema";
import { newId } from "@/server/ids";
import { createTestAgent, createTestCall, createTestSequence } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createOrgWithAgent, rotatingKey } from "./fixtures";

const db = useTestDb();
const api = apiClient(db);

async function conversationAt(owner: { organizationId: string; agentId: string }, ...times: string[]) {
  const sequence = await createTestSequence(db, owner);
  for (const [index, time] of times.entries()) {
    await createTestCall(db, { ...owner, sequenceId: sequence.id, stepNumber: index + 1, scheduledAt: new Date(time) });
  }
  return sequence.id;
}

describe("GET /conversations/search/{agentId}", () => {
  it("takes start and end as inclusive UTC days: 00:00:00.000Z and 23:59:59.999Z in, the next day's 00:00 out", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const before = await conversationAt(owner, "2026-03-09T23:59:59.999Z");
    const firstInstant = await conversationAt(owner, "2026-03-10T00:00:00.000Z");
    const middle = await conversationAt(owner, "2026-03-11T12:00:00.000Z");
    const lastInstant = await conversationAt(owner, "2026-03-12T23:59:59.999Z");
    const nextDay = await conversationAt(owner, "2026-03-13T00:00:00.000Z");

    const res = await api(`/conversations/search/${agent.id}`, { key: apiKey, query: { start: "2026-03-10", end: "2026-03-12" } });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ sequenceIds: [firstInstant, middle, lastInstant], hasMore: false, total: 3, limit: 100, offset: 0 });
    expect(res.body.sequenceIds).not.toContain(before);
    expect(res.body.sequenceIds).not.toContain(nextDay);

    const oneDay = await api(`/conversations/search/${agent.id}`, { key: apiKey, query: { start: "2026-03-12", end: "2026-03-12" } });
    expect(oneDay.body.sequenceIds).toEqual([lastInstant]);
  });

  it("matches a sequence by any of its call steps, lists it once, and ignores other agents and organizations", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const otherAgent = await createTestAgent(db, organization.id, { name: "Other agent" });
    const foreign = await createOrgWithAgent(db, "Foreign");
    // Step 1 before the window, step 2 and 3 inside: found once, placed by its earliest call inside the window.
    const late = await conversationAt(owner, "2026-04-01T10:00:00.000Z", "2026-04-03T09:00:00.000Z", "2026-04-03T10:00:00.000Z");
    const early = await conversationAt(owner, "2026-04-02T08:00:00.000Z");
    await conversationAt({ organizationId: organization.id, agentId: otherAgent.id }, "2026-04-02T09:00:00.000Z");
    await conversationAt({ organizationId: foreign.organization.id, agentId: foreign.agent.id }, "2026-04-02T09:00:00.000Z");
    const res = await api(`/conversations/search/${agent.id}`, { key: apiKey, query: { start: "2026-04-02", end: "2026-04-30" } });
    expect(res.body.sequenceIds).toEqual([early, late]);
    expect(res.body.total).toBe(2);

    const foreignAgent = await api(`/conversations/search/${foreign.agent.id}`, { key: apiKey, query: { start: "2026-04-01", end: "2026-04-30" } });
    expect(foreignAgent.status).toBe(404);
    expect(foreignAgent.body).toEqual({ error: "AGENT_NOT_FOUND", message: expect.any(String) });
    const unknown = await api(`/conversations/search/agent.01unknown`, { key: apiKey, query: { start: "2026-04-01", end: "2026-04-30" } });
    expect(unknown.status).toBe(404);
  });

  it("pages through 1,200 sequences with no gaps or repeats, including ties on the scheduled time", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const key = rotatingKey(db, organization.id);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const base = Date.UTC(2026, 5, 1, 9, 0, 0);
    const ids: string[] = [];
    for (let chunk = 0; chunk < 4; chunk++) {
      const sequenceRows = [];
      const callRows = [];
      for (let i = 0; i < 300; i++) {
        const n = chunk * 300 + i;
        const id = newId("call-sequence");
        ids.push(id);
        sequenceRows.push({ id, ...owner, name: `Contact ${n}`, phoneNumber: "+12015550123", timezone: "UTC", scheduledBy: "test", steps: [] });
        // Groups of 7 share one instant (ties are broken by sequence ID); times spread over 10 days.
        const at = new Date(base + Math.floor(n / 7) * 3_600_000);
        callRows.push({ id: newId("call"), ...owner, sequenceId: id, stepNumber: 1, scheduledAt: at });
        if (n % 3 === 0) callRows.push({ id: newId("call"), ...owner, sequenceId: id, stepNumber: 2, scheduledAt: new Date(at.getTime() + 86_400_000) });
      }
      await db.insert(sequences).values(sequenceRows);
      await db.insert(calls).values(callRows);
    }

    const seen: string[] = [];
    for (const limit of [500, 77]) {
      const pageIds: string[] = [];
      let offset = 0;
      let pages = 0;
      for (;;) {
        const res = await api(`/conversations/search/${agent.id}`, {
          key: await key(),
          query: { start: "2026-06-01", end: "2026-06-30", limit, offset },
        });
        expect(res.status).toBe(200);
        expect(res.body.total).toBe(1200);
        expect(res.body.sequenceIds.length).toBeLessThanOrEqual(limit);
        pageIds.push(...res.body.sequenceIds);
        pages++;
        if (!res.body.hasMore) break;
        expect(res.body.sequenceIds).toHaveLength(limit);
        offset += limit;
      }
      expect(pages).toBe(Math.ceil(1200 / limit));
      expect(pageIds).toHaveLength(1200);
      expect(new Set(pageIds).size).toBe(1200);
      expect([...pageIds].sort()).toEqual([...ids].sort());
      if (seen.length === 0) seen.push(...pageIds);
      else expect(pageIds).toEqual(seen);
    }
    const past = await api(`/conversations/search/${agent.id}`, { key: await key(), query: { start: "2026-06-01", end: "2026-06-30", offset: 1200 } });
    expect(past.body).toMatchObject({ sequenceIds: [], hasMore: false, total: 1200 });
    const exact = await api(`/conversations/search/${agent.id}`, { key: await key(), query: { start: "2026-06-01", end: "2026-06-30", limit: 500, offset: 700 } });
    expect(exact.body.sequenceIds).toHaveLength(500);
    expect(exact.body.hasMore).toBe(false);
  });

  it("answers 400 INVALID_REQUEST for every bad parameter", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const key = rotatingKey(db, organization.id);
    const good = { start: "2026-01-01", end: "2026-01-31" };
    const bad: Array<Record<string, string | number | undefined>> = [
      { end: "2026-01-31" },
      { start: "2026-01-01" },
      { ...good, start: "2026-1-01" },
      { ...good, start: "2026-01-1" },
      { ...good, start: "20260101" },
      { ...good, start: "2026-02-30" },
      { ...good, end: "2026-13-01" },
      { ...good, start: "2026-01-01T00:00:00Z" },
      { ...good, start: "" },
      { start: "2026-02-01", end: "2026-01-31" },
      { ...good, limit: 0 },
      { ...good, limit: 501 },
      { ...good, limit: "abc" },
      { ...good, limit: "1.5" },
      { ...good, limit: "" },
      { ...good, limit: "-1" },
      { ...good, offset: -1 },
      { ...good, offset: "x" },
      { ...good, offset: "2e3" },
    ];
    for (const query of bad) {
      const res = await api(`/conversations/search/${agent.id}`, { key: await key(), query });
      expect(res.status, JSON.stringify(query)).toBe(400);
      expect(res.body.error, JSON.stringify(query)).toBe("INVALID_REQUEST");
    }
    const named = await api(`/conversations/search/${agent.id}`, { key: await key(), query: { ...good, limit: 501 } });
    expect(named.body.message).toContain("limit");
    for (const query of [good, { ...good, limit: 1 }, { ...good, limit: 500, offset: 0 }, { ...good, offset: 1000000 }]) {
      const res = await api(`/conversations/search/${agent.id}`, { key: await key(), query });
      expect(res.status, JSON.stringify(query)).toBe(200);
    }
  });
});
