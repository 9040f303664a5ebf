import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents } from "@/db/schema";
import type { RateLimitStore } from "@/server/http/rate-limit";
import { ANSWER_MOVES } from "@/server/voice/answer-classifier/answer-moves";
import { createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
/** More than 10 requests a second with one key: the rate limit is not what this file tests. */
const unlimitedKeys: RateLimitStore = { hit: async (_subject, _policy, nowMs) => ({ allowed: true, hits: [nowMs] }) };
const api = apiClient(db, { rateLimits: { keyStore: unlimitedKeys } });

const DEFAULTS = { human: "converse", voicemail: "leave-voicemail", ivr: "navigate", screener: "announce-and-wait", fax: "hang-up", intercept: "end-invalid-number", "hold-queue": "wait" };

function agentDocument(extra: Record<string, unknown> = {}) {
  return {
    name: "Ava",
    status: "ACTIVE",
    timezones: ["America/New_York"],
    phoneNumbers: [],
    steps: [{ stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" } }],
    prompt: "You are Ava from Northwind.",
    bookingConfig: null,
    inputVariables: [],
    extractedVariables: [],
    outcomes: [],
    ...extra,
  };
}

describe("per-agent answer moves through /api/v1", () => {
  it("defaults when absent, a partial map on create, replaced on update, kept when left out", async () => {
    const { apiKey: key } = await createTestOrganization(db);
    const plain = await api("/agents", { method: "POST", key, body: agentDocument() });
    expect(plain.status, plain.text).toBe(201);
    // The defaults are the first move of each class in the vocabulary, and the documented ones.
    expect(DEFAULTS).toEqual(Object.fromEntries(Object.entries(ANSWER_MOVES).map(([answerClass, moves]) => [answerClass, moves[0]])));
    expect((await api(`/agents/${plain.body.agentId}/config`, { key })).body.answerMoves).toEqual(DEFAULTS);

    const created = await api("/agents", { method: "POST", key, body: agentDocument({ answerMoves: { voicemail: "hang-up", "hold-queue": "hang-up" } }) });
    expect(created.status, created.text).toBe(201);
    const { agentId } = created.body;
    expect((await api(`/agents/${agentId}/config`, { key })).body.answerMoves).toEqual({ ...DEFAULTS, voicemail: "hang-up", "hold-queue": "hang-up" });

    const updated = await api(`/agents/${agentId}`, { method: "PUT", key, body: agentDocument({ answerMoves: { ivr: "hang-up", screener: "hang-up", intercept: "hang-up" } }) });
    expect(updated.status, updated.text).toBe(200);
    // The map sent replaces the stored one: voicemail is back to its default.
    expect((await api(`/agents/${agentId}/config`, { key })).body.answerMoves).toEqual({ ...DEFAULTS, ivr: "hang-up", screener: "hang-up", intercept: "hang-up" });

    expect((await api(`/agents/${agentId}`, { method: "PUT", key, body: agentDocument({ prompt: "You are Ava, still." }) })).status).toBe(200);
    expect((await api(`/agents/${agentId}/config`, { key })).body.answerMoves).toEqual({ ...DEFAULTS, ivr: "hang-up", screener: "hang-up", intercept: "hang-up" });

    // The effective map as read is accepted back as it is.
    expect((await api(`/agents/${agentId}`, { method: "PUT", key, body: agentDocument({ answerMoves: DEFAULTS }) })).status).toBe(200);
    expect((await api(`/agents/${agentId}/config`, { key })).body.answerMoves).toEqual(DEFAULTS);
  });

  it("an unknown class or a move its class does not allow is a field error, and nothing is saved", async () => {
    const { apiKey: key, organization } = await createTestOrganization(db);
    const { agentId } = (await api("/agents", { method: "POST", key, body: agentDocument({ answerMoves: { fax: "hang-up" } }) })).body;
    const cases = [
      { answerMoves: { machine: "hang-up" }, path: "answerMoves", message: /unknown class "machine"/ },
      { answerMoves: { voicemail: "navigate" }, path: "answerMoves.voicemail", message: /voicemail allows "leave-voicemail", "hang-up"/ },
      { answerMoves: { human: "hang-up" }, path: "answerMoves.human", message: /human allows "converse"/ },
      { answerMoves: { fax: "leave-voicemail" }, path: "answerMoves.fax", message: /fax allows "hang-up"/ },
      { answerMoves: { intercept: "teleport" }, path: "answerMoves.intercept", message: /intercept allows/ },
    ];
    for (const bad of cases) {
      for (const [method, path] of [["PUT", `/agents/${agentId}`], ["POST", "/agents"]] as const) {
        const res = await api(path, { method, key, body: agentDocument({ answerMoves: bad.answerMoves, prompt: "Changed prompt" }) });
        const label = `${method} ${JSON.stringify(bad.answerMoves)}`;
        expect(res.status, label).toBe(400);
        expect(res.body.error, label).toBe("INVALID_REQUEST");
        expect(res.body.message, label).toMatch(bad.message);
        expect(res.body.details.issues, label).toEqual([expect.objectContaining({ path: bad.path, message: expect.stringMatching(bad.message) })]);
      }
    }
    const after = (await api(`/agents/${agentId}/config`, { key })).body;
    expect(after.prompt).toBe("You are Ava from Northwind.");
    expect(after.answerMoves).toEqual(DEFAULTS);
    expect(await db.select({ id: agents.id }).from(agents).where(eq(agents.organizationId, organization.id))).toHaveLength(1);
  });
});
