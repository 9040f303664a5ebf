import { eq, inArray } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { agents, callEvents, calls, webhookDeliveries, webhookDeliveryAttempts } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { callAnalyzed } from "@/inngest/events";
import { createDeliverWebhookFunction } from "@/inngest/functions/deliver-webhook";
import { createEnqueueWebhookDeliveriesFunction } from "@/inngest/functions/enqueue-webhook-deliveries";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import { analyzeEndedCall } from "@/server/services/call-engine/analyze-call";
import { buildCallAnalyzedData, callAnalyzedEventId } from "@/server/services/call-engine/announce";
import { dialDueCall } from "@/server/services/call-engine/dial-call";
import { finalizeCall } from "@/server/services/call-engine/finalize-call";
import { handleVoiceProviderEvent } from "@/server/services/call-engine/voice-events";
import { encodeEventCursor } from "@/server/services/events/event-cursor";
import { deleteExpiredEvents } from "@/server/services/events/delete-expired-events";
import { materializeBulkBatch } from "@/server/services/enrollment/materialize-bulk-batch";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { createCallDeliveries } from "@/server/services/webhooks/deliveries";
import { createSimulatedVoiceEngine } from "@/server/voice/simulator/simulator";
import { messageIdForCall } from "@/server/services/webhooks/signing";
import { createTestAgent, createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest, type TestInngest } from "../../helpers/inngest";
import { callStep, createEngineOrganization } from "../call-engine/harness";
import { patientApiClient } from "../enrollment/helpers";
import { createAnalyzedCall, createLoopbackEndpoint, startReceiver, useTestEncryptionKey } from "../webhooks/fixtures";

useTestEncryptionKey();
const db = useTestDb();
const api = patientApiClient(db);

type FeedEvent = { id: string; type: string; createdAt: string; data: Record<string, unknown> & { callId: string } };
type FeedPage = { events: FeedEvent[]; nextCursor: string | null; hasMore: boolean };

let runner: TestInngest | null = null;
afterEach(async () => {
  await runner?.stop();
  runner = null;
});

async function feed(key: string, query: Record<string, string | number | undefined> = {}): Promise<FeedPage> {
  const res = await api("/events", { key, query });
  expect(res.status, res.text.slice(0, 300)).toBe(200);
  return res.body as FeedPage;
}

/** Reads the whole feed from `after`, page by page, until it says there is no more. */
async function readAll(key: string, options: { after?: string; limit?: number; agentId?: string } = {}) {
  const events: FeedEvent[] = [];
  let after = options.after;
  for (;;) {
    const page = await feed(key, { after, limit: options.limit, agentId: options.agentId });
    events.push(...page.events);
    after = page.nextCursor ?? undefined;
    if (!page.hasMore) return { events, cursor: after };
  }
}

describe("GET /events", () => {
  it("lists analysed calls in creation order with the webhook body and webhook-id, without any endpoint", async () => {
    const first = await createAnalyzedCall(db);
    const second = await createAnalyzedCall(db, { organizationId: first.organizationId, agentId: first.agentId });
    await createCallDeliveries(db, { callId: first.call.id });
    await createCallDeliveries(db, { callId: second.call.id });
    // A redelivered call/analyzed records nothing twice.
    await createCallDeliveries(db, { callId: first.call.id });

    const page = await feed(first.apiKey!);
    expect(page.events.map((event) => event.id)).toEqual([messageIdForCall(first.call.id), messageIdForCall(second.call.id)]);
    expect(page.hasMore).toBe(false);
    expect(page.events[0]).toMatchObject({ type: "call.result", createdAt: expect.any(String) });
    expect(page.events[0]!.data).toMatchObject({ callId: first.call.id, agentId: first.agentId, callResult: { resultType: "Goal Completed" } });
    expect(page.events[0]!.data).not.toHaveProperty("recordingUrl");

    // Nothing new after the last cursor: the same cursor comes back.
    const after = await feed(first.apiKey!, { after: page.nextCursor! });
    expect(after).toEqual({ events: [], nextCursor: page.nextCursor, hasMore: false });
  });

  it("gives `data` exactly as the webhook delivery body and `id` as its webhook-id", async () => {
    const receiver = await startReceiver(() => ({ status: 200 }));
    const fixture = await createAnalyzedCall(db);
    await createLoopbackEndpoint(db, fixture.organizationId, receiver.url);
    const clock = createTestClock(new Date());
    // eventBatchSize 1: the batched enqueue runs at once instead of after its 1 s batch timeout on the simulated clock.
    const deps = { getDb: () => db, now: clock.now, addressPolicy: () => LOOPBACK_ADDRESS_POLICY, eventBatchSize: 1 };
    runner = await startTestInngest({ db, clock, functions: [createEnqueueWebhookDeliveriesFunction(inngest, deps), createDeliverWebhookFunction(inngest, deps)] });
    await inngest.send(callAnalyzed.create({ callId: fixture.call.id }));
    await runner.drain();
    expect(receiver.requests).toHaveLength(1);
    const [event] = (await feed(fixture.apiKey!)).events;
    expect(event!.id).toBe(receiver.requests[0]!.headers["webhook-id"]);
    expect(event!.data).toEqual(JSON.parse(receiver.requests[0]!.body));
    const [delivery] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.callId, fixture.call.id));
    const [stored] = await db.select().from(callEvents).where(eq(callEvents.callId, fixture.call.id));
    expect(stored!.body).toBe(delivery!.body);
  });

  it("pages with limit and filters by agent; another organization sees nothing", async () => {
    const first = await createAnalyzedCall(db);
    const otherAgent = await createTestAgent(db, first.organizationId, { name: "Second" });
    const callIds = [first.call.id];
    for (let i = 0; i < 4; i += 1) {
      const more = await createAnalyzedCall(db, { organizationId: first.organizationId, agentId: i % 2 === 0 ? otherAgent.id : first.agentId });
      callIds.push(more.call.id);
    }
    for (const callId of callIds) await createCallDeliveries(db, { callId });

    const { events } = await readAll(first.apiKey!, { limit: 2 });
    expect(events.map((event) => event.data.callId)).toEqual(callIds);
    const page = await feed(first.apiKey!, { limit: 2 });
    expect(page.events).toHaveLength(2);
    expect(page.hasMore).toBe(true);

    const filtered = await readAll(first.apiKey!, { agentId: otherAgent.id, limit: 1 });
    expect(filtered.events.map((event) => event.data.callId)).toEqual([callIds[1], callIds[3]]);

    const stranger = await createTestOrganization(db);
    expect(await feed(stranger.apiKey)).toEqual({ events: [], nextCursor: null, hasMore: false });
    // Cursors are opaque per organization: another organization's cursor is refused, and tells nothing of the position.
    const foreign = await api("/events", { key: stranger.apiKey, query: { after: page.nextCursor! } });
    expect(foreign.status).toBe(400);
    expect(foreign.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("for this organization") });
    expect(page.nextCursor).toMatch(/^e2[A-Za-z0-9_-]{48}$/);
    // The same position twice gives two different cursors, both valid.
    const again = await feed(first.apiKey!, { limit: 2 });
    expect(again.nextCursor).not.toBe(page.nextCursor);
    expect((await feed(first.apiKey!, { after: again.nextCursor!, limit: 500 })).events.map((event) => event.data.callId)).toEqual(callIds.slice(2));
    // Another organization's agent is an unknown agent.
    expect((await api("/events", { key: stranger.apiKey, query: { agentId: otherAgent.id } })).body.error).toBe("AGENT_NOT_FOUND");
  });

  it("refuses bad cursors and limits with 400 in the documented shape", async () => {
    const { apiKey, organization } = await createTestOrganization(db);
    for (const after of ["nope", "ZTE6", Buffer.from("e1:-5").toString("base64url"), Buffer.from("x1:5").toString("base64url"), `e2${"A".repeat(48)}`, "%%", "a".repeat(129)]) {
      const res = await api("/events", { key: apiKey, query: { after } });
      expect(res.status, after).toBe(400);
      expect(res.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.any(String) });
    }
    for (const limit of ["0", "501", "1e2", "-1", "x"]) {
      expect((await api("/events", { key: apiKey, query: { limit } })).status, limit).toBe(400);
    }
    expect((await api("/events", { key: apiKey, query: { after: encodeEventCursor(organization.id, 123), limit: "500" } })).status).toBe(200);
    expect((await api("/events")).status).toBe(401);
  });

  it("keeps events 30 days", async () => {
    const fixture = await createAnalyzedCall(db);
    const kept = await createAnalyzedCall(db, { organizationId: fixture.organizationId, agentId: fixture.agentId });
    const now = new Date();
    await createCallDeliveries(db, { callId: fixture.call.id, now: new Date(now.getTime() - 31 * 86_400_000) });
    await createCallDeliveries(db, { callId: kept.call.id, now: new Date(now.getTime() - 29 * 86_400_000) });
    await deleteExpiredEvents(db, { now, maxBatches: 10 });
    expect((await feed(fixture.apiKey!)).events.map((event) => event.data.callId)).toEqual([kept.call.id]);
  });
});

describe("GET /events while webhooks are down", () => {
  it(
    "returns every call of a 1,000-contact run exactly once across pages, read while the calls are happening",
    async () => {
      const receiver = await startReceiver(() => ({ status: 503, body: "down for maintenance" }));
      // The latest 16:00 UTC (11:00 or 12:00 in Washington, DC): inside quiet hours, which the dial gate enforces.
      const daytime = new Date();
      daytime.setUTCHours(16, 0, 0, 0);
      if (daytime.getTime() > Date.now()) daytime.setTime(daytime.getTime() - 86_400_000);
      const clock = createTestClock(daytime);
      // The webhook functions on the embedded runner: `call/analyzed` → feed event + deliveries → first attempts (503).
      const webhookDeps = { getDb: () => db, now: clock.now, addressPolicy: () => LOOPBACK_ADDRESS_POLICY };
      runner = await startTestInngest({ db, clock, functions: [createEnqueueWebhookDeliveriesFunction(inngest, webhookDeps), createDeliverWebhookFunction(inngest, webhookDeps)] });

      // 1,000 calls in a day: 12 numbers under the default cap of 100 calls a day per number (docs/numbers.md).
      const { organization, apiKey, agent } = await createEngineOrganization(db, { steps: [callStep()] }, { poolAreaCodes: Array.from({ length: 12 }, () => "212") });
      // Every result type in turn (20 % failures), dialed by several workers: auto-pause is another test's subject.
      await db.update(agents).set({ autoPauseEnabled: false }).where(eq(agents.id, agent.id));
      await createLoopbackEndpoint(db, organization.id, receiver.url);
      const contacts = Array.from({ length: 1_000 }, (_, i) => ({ name: `Contact ${i}`, phoneNumber: `+1202555${String(i).padStart(4, "0")}`, company_name: "Acme" }));
      const accepted = await patientApiClient(db, { now: clock.now })(`/agents/${agent.id}/schedule/sequences`, {
        method: "POST",
        key: apiKey,
        body: { timezone: "America/New_York", contacts },
      });
      expect(accepted.status, accepted.text.slice(0, 300)).toBe(202);
      expect(accepted.body.accepted).toBe(1_000);
      const { startedSequenceIds: sequenceIds } = await materializeBulkBatch(db, { batchId: accepted.body.batchId, now: clock.now() });
      expect(sequenceIds).toHaveLength(1_000);

      // The calls, through the engine's services (as the demo history drives them): dial → simulated conversation →
      // provider events → rule-based analysis → finalize → `call/analyzed`, four calls at a time.
      const simulator = createSimulatedVoiceEngine({
        pace: "manual",
        now: clock.now,
        transport: async (event) => {
          const outcome = await handleVoiceProviderEvent(db, { event });
          return outcome.status === "accepted" ? (outcome.toolResult ?? null) : null;
        },
      });
      const driveCall = async (sequenceId: string) => {
        const [call] = await db.select({ id: calls.id }).from(calls).where(eq(calls.sequenceId, sequenceId));
        const dial = await dialDueCall(db, { callId: call!.id, now: clock.now(), voiceEngine: simulator });
        expect(dial).toMatchObject({ status: "dialed" });
        await simulator.runPending(call!.id);
        const analysis = await analyzeEndedCall(db, { callId: call!.id, analyzer: ruleBasedAnalyzer });
        await finalizeCall(db, { callId: call!.id, analysis: analysis!, now: clock.now() });
        const announcement = await buildCallAnalyzedData(db, call!.id);
        await inngest.send(callAnalyzed.create(announcement!, { id: callAnalyzedEventId(call!.id) }));
      };

      let callsDone = false;
      const calling = (async () => {
        const queue = [...sequenceIds];
        await Promise.all(
          Array.from({ length: 4 }, async () => {
            for (let next = queue.shift(); next; next = queue.shift()) await driveCall(next);
          }),
        );
      })().finally(() => {
        callsDone = true;
      });
      const delivering = (async () => {
        while (!callsDone) {
          await runner!.runner.drain({ maxJobs: 1_000_000 });
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await runner!.runner.drain({ maxJobs: 1_000_000 });
      })();
      // A client polling the feed the whole time.
      const seen: FeedEvent[] = [];
      let cursor: string | undefined;
      const reads = apiClient(db);
      const reading = (async () => {
        let pagesWhileCalling = 0;
        while (!callsDone) {
          const res = await reads("/events", { key: apiKey, query: { after: cursor, limit: 137 } });
          if (res.status === 429) {
            await new Promise((resolve) => setTimeout(resolve, 200));
            continue;
          }
          expect(res.status).toBe(200);
          const page = res.body as FeedPage;
          seen.push(...page.events);
          if (page.events.length > 0) pagesWhileCalling += 1;
          cursor = page.nextCursor ?? undefined;
          if (!page.hasMore) await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return pagesWhileCalling;
      })();
      await calling;
      await delivering;
      const pagesWhileCalling = await reading;
      expect(pagesWhileCalling).toBeGreaterThan(1);
      const rest = await readAll(apiKey, { after: cursor, limit: 500 });
      seen.push(...rest.events);

      const callRows = await db.select({ id: calls.id, resultType: calls.resultType }).from(calls).where(inArray(calls.sequenceId, sequenceIds));
      expect(callRows).toHaveLength(1_000);
      const ids = seen.map((event) => event.id);
      expect(new Set(ids).size).toBe(ids.length);
      expect([...ids].sort()).toEqual(callRows.map((call) => messageIdForCall(call.id)).sort());
      expect(seen.every((event) => event.id === messageIdForCall(event.data.callId))).toBe(true);
      // Every result type of the outcome table is in the feed (the digits 0–9 of the numbers).
      expect(new Set(seen.map((event) => (event.data.callResult as { resultType: string }).resultType)).size).toBe(8);

      // Webhooks were down the whole time: every delivery failed its first attempt and waits for its retry.
      const deliveries = await db
        .select({ id: webhookDeliveries.id, status: webhookDeliveries.status, lastStatusCode: webhookDeliveries.lastStatusCode, attemptCount: webhookDeliveries.attemptCount })
        .from(webhookDeliveries)
        .where(eq(webhookDeliveries.organizationId, organization.id));
      expect(deliveries).toHaveLength(1_000);
      const others = deliveries.filter((delivery) => delivery.status !== "pending" || delivery.lastStatusCode !== 503);
      // On failure, say what the others went through (their attempts), not just that they differ.
      const attempts = others.length
        ? await db
            .select({ deliveryId: webhookDeliveryAttempts.deliveryId, statusCode: webhookDeliveryAttempts.statusCode, error: webhookDeliveryAttempts.error, durationMs: webhookDeliveryAttempts.durationMs })
            .from(webhookDeliveryAttempts)
            .where(inArray(webhookDeliveryAttempts.deliveryId, others.map((delivery) => delivery.id)))
        : [];
      expect(others, JSON.stringify({ others: others.slice(0, 5), attempts: attempts.slice(0, 10) })).toEqual([]);
    },
    600_000,
  );
});
