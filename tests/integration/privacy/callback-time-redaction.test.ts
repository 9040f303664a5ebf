import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls } from "@/db/schema";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import { analyzeEndedCall } from "@/server/services/call-engine/analyze-call";
import { finalizeCall } from "@/server/services/call-engine/finalize-call";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

/**
 * Issue 34: a callback time said as "Wednesday, December 2 at 3:30 PM" was stored as `[redacted:phone]:30:00` in the
 * summary and the DATE/TIME variable ("2026-12-02 15:30:00" read as the phone number 202-612-0215). The ended call
 * goes through the real analysis (rule-based analyser, then redaction with the organization's settings) and the real
 * finalization that stores it, and is read back through `/api/v1`.
 */

const db = useTestDb();
const api = apiClient(db);

describe("redaction of a call's analysis keeps the callback time (issue 34)", () => {
  it("stores the summary, the DATE/TIME variable and the callback request with the time intact, and still redacts a third party's number", async () => {
    // Every built-in category is on by default.
    const { organization, apiKey } = await createTestOrganization(db, { name: "Acme" });
    const agent = await createTestAgent(db, organization.id, {
      name: "Ava",
      extractedVariables: [
        { slug: "callback_time", displayName: "Callback time", type: "DATE/TIME", datetimeFormat: "yyyy-MM-dd HH:mm:ss" },
        { slug: "best_number", displayName: "Best number", type: "STRING" },
      ],
    });
    const owner = { organizationId: organization.id, agentId: agent.id };
    const sequence = await createTestSequence(db, { ...owner, name: "Jane Doe", phoneNumber: "+14155550171", timezone: "America/New_York" });
    const endedAt = new Date("2026-11-30T15:00:00Z");
    const call = await createTestCall(db, {
      ...owner,
      sequenceId: sequence.id,
      scheduledAt: new Date("2026-11-30T14:55:00Z"),
      endedAt,
      duration: 125,
      disposition: "answered",
      resultType: "Processing Analysis",
      transcript: [
        "Agent: Hi Jane, this is Ava from Acme. Is now a good moment?",
        "Customer: Not really, I'm about to head into a meeting.",
        "Agent: No problem. What callback time works for you?",
        "Customer: Please call me back Wednesday, December 2 at 3:30 PM.",
        "Agent: Got it. And what's the best number to reach you?",
        "Customer: My assistant's line, 212-555-0134.",
      ].join("\n"),
    });

    const analysis = await analyzeEndedCall(db, { callId: call.id, analyzer: ruleBasedAnalyzer });
    expect(analysis).not.toBeNull();
    const finalized = await finalizeCall(db, { callId: call.id, analysis: analysis!, now: new Date("2026-11-30T15:00:05Z") });
    expect(finalized.finalized).toBe(true);

    const [stored] = await db.select().from(calls).where(eq(calls.id, call.id));
    expect(stored!.extractedVariables).toMatchObject({ callback_time: "2026-12-02 15:30:00", best_number: "My assistant's line, [redacted:phone]" });
    expect(stored!.summary).toContain("callback time: 2026-12-02 15:30:00");
    expect(stored!.summary).not.toContain("[redacted:phone]:30:00");
    expect(stored!.summary).not.toContain("212-555-0134");
    const callback = stored!.humanActions.find((action) => action.actionKey === "request_callback");
    expect(callback?.metadata).toMatchObject({ when: "Wednesday, December 2 at 3:30 PM" });

    // What the organization reads back through the public API.
    const res = await api(`/conversations/metadata/${sequence.id}`, { key: apiKey });
    expect(res.status, res.text.slice(0, 300)).toBe(200);
    const result = res.body.metadata[0].callResult;
    expect(result.extractedVariables).toMatchObject({ callback_time: "2026-12-02 15:30:00", best_number: "My assistant's line, [redacted:phone]" });
    expect(result.summary).toContain("2026-12-02 15:30:00");
    // (The transcript was written by this test as is; the engine redacts its lines as they are stored.)
    expect(JSON.stringify([result.summary, result.extractedVariables, result.humanActions, result.agentActions])).not.toContain("212-555-0134");
  });
});
