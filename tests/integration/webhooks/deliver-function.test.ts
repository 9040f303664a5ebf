import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterEach, describe, expect, it } from "vitest";
import { webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { inngest } from "@/inngest/client";
import { callAnalyzed } from "@/inngest/events";
import { createDeliverWebhookFunction } from "@/inngest/functions/deliver-webhook";
import { createEnqueueWebhookDeliveriesFunction } from "@/inngest/functions/enqueue-webhook-deliveries";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { getWebhookDelivery } from "@/server/services/webhooks/deliveries";
import { RETRY_SCHEDULE_MS } from "@/server/services/webhooks/retry-schedule";
import { messageIdForCall } from "@/server/services/webhooks/signing";
import { useTestDb } from "../../helpers/db";
import { createTestClock, startTestInngest, type TestInngest } from "../../helpers/inngest";
import { createAnalyzedCall, createLoopbackEndpoint, startReceiver, useTestEncryptionKey } from "./fixtures";

useTestEncryptionKey();
const db = useTestDb();
let current: TestInngest | null = null;

afterEach(async () => {
  await current?.stop();
  current = null;
});

/** The app's two webhook functions, on this test's database, injected clock and loopback-allowing policy. */
async function startWebhookRunner() {
  const clock = createTestClock(new Date());
  const deps = { getDb: () => db, now: clock.now, addressPolicy: () => LOOPBACK_ADDRESS_POLICY, eventBatchSize: 1 };
  current = await startTestInngest({
    db,
    clock,
    functions: [createEnqueueWebhookDeliveriesFunction(inngest, deps), createDeliverWebhookFunction(inngest, deps)],
  });
  return current;
}

async function deliveriesOf(callId: string) {
  return db.select().from(webhookDeliveries).where(eq(webhookDeliveries.callId, callId));
}

describe("call/analyzed → deliver-webhook (embedded runner, injected clock)", () => {
  it("a receiver answering 500 twice then 200 gets three attempts, one webhook-id, after 5 s and 30 s", async () => {
    const receiver = await startReceiver((_request, index) => (index < 2 ? { status: 500, body: "not yet" } : { status: 200, body: "thanks" }));
    const fixture = await createAnalyzedCall(db);
    const { secret } = await createLoopbackEndpoint(db, fixture.organizationId, receiver.url);
    const runner = await startWebhookRunner();
    const t0 = runner.clock.now().getTime();

    await inngest.send(callAnalyzed.create({ callId: fixture.call.id }));
    await runner.drain();
    expect(receiver.requests).toHaveLength(1);

    await runner.advance(4_999);
    expect(receiver.requests).toHaveLength(1);
    await runner.advance(1);
    expect(receiver.requests).toHaveLength(2);
    await runner.advance(29_999);
    expect(receiver.requests).toHaveLength(2);
    await runner.advance(1);
    expect(receiver.requests).toHaveLength(3);
    expect(await runner.nextWakeAt()).toBeNull();

    const ids = receiver.requests.map((request) => request.headers["webhook-id"]);
    expect(ids).toEqual(Array(3).fill(messageIdForCall(fixture.call.id)));
    expect(receiver.requests.map((request) => Number(request.headers["webhook-timestamp"]))).toEqual([
      Math.floor(t0 / 1000),
      Math.floor((t0 + 5_000) / 1000),
      Math.floor((t0 + 35_000) / 1000),
    ]);
    for (const request of receiver.requests) {
      expect((new Webhook(secret).verify(request.body, request.headers) as { callId: string }).callId).toBe(fixture.call.id);
    }

    const [delivery] = await deliveriesOf(fixture.call.id);
    const logged = await getWebhookDelivery(db, { organizationId: fixture.organizationId, deliveryId: delivery!.id });
    expect(logged).toMatchObject({ status: "succeeded", attemptCount: 3, lastStatusCode: 200 });
    expect(logged.attempts.map((a) => [a.attemptNumber, a.trigger, a.statusCode, a.attemptedAt])).toEqual([
      [1, "automatic", 500, new Date(t0).toISOString()],
      [2, "automatic", 500, new Date(t0 + 5_000).toISOString()],
      [3, "automatic", 200, new Date(t0 + 35_000).toISOString()],
    ]);
    expect(logged.attempts.map((a) => a.responseSnippet)).toEqual(["not yet", "not yet", "thanks"]);
  });

  it("follows the whole schedule (5 s … 10 h) and then marks the delivery failed", async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const fixture = await createAnalyzedCall(db);
    await createLoopbackEndpoint(db, fixture.organizationId, receiver.url);
    const runner = await startWebhookRunner();
    const t0 = runner.clock.now().getTime();

    await inngest.send(callAnalyzed.create({ callId: fixture.call.id }));
    await runner.advance(2 * 86_400_000);
    expect(receiver.requests).toHaveLength(9);

    const [delivery] = await deliveriesOf(fixture.call.id);
    const logged = await getWebhookDelivery(db, { organizationId: fixture.organizationId, deliveryId: delivery!.id });
    expect(logged.status).toBe("failed");
    const offsets = logged.attempts.map((a) => new Date(a.attemptedAt).getTime() - t0);
    let expected = 0;
    expect(offsets).toEqual([0, ...RETRY_SCHEDULE_MS.map((delay) => (expected += delay))]);
    expect(new Set(receiver.requests.map((request) => request.headers["webhook-id"])).size).toBe(1);
  });

  it("fans out one run per endpoint: a failing endpoint does not hold back a healthy one, a 410 stops at once", async () => {
    const healthy = await startReceiver();
    const failing = await startReceiver(() => ({ status: 503, headers: { "retry-after": "60" } }));
    const gone = await startReceiver(() => ({ status: 410 }));
    const fixture = await createAnalyzedCall(db);
    await createLoopbackEndpoint(db, fixture.organizationId, healthy.url);
    await createLoopbackEndpoint(db, fixture.organizationId, failing.url);
    const goneEndpoint = await createLoopbackEndpoint(db, fixture.organizationId, gone.url);
    const runner = await startWebhookRunner();

    await inngest.send(callAnalyzed.create({ callId: fixture.call.id }));
    await runner.drain();
    expect([healthy.requests.length, failing.requests.length, gone.requests.length]).toEqual([1, 1, 1]);
    const statuses = Object.fromEntries((await deliveriesOf(fixture.call.id)).map((d) => [d.endpointId, d.status]));
    expect(Object.values(statuses).sort()).toEqual(["failed", "pending", "succeeded"]);
    const [endpoint] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, goneEndpoint.endpoint.endpointId));
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: "gone" });

    // Retry-After: 60 on a 503 waits 60 s, not the scheduled 5 s.
    await runner.advance(59_000);
    expect(failing.requests).toHaveLength(1);
    await runner.advance(1_000);
    expect(failing.requests).toHaveLength(2);
    expect(healthy.requests).toHaveLength(1);
    expect(gone.requests).toHaveLength(1);
  });

  it("an analysed call without endpoints completes without deliveries", async () => {
    const fixture = await createAnalyzedCall(db);
    const runner = await startWebhookRunner();
    await inngest.send(callAnalyzed.create({ callId: fixture.call.id }));
    await runner.drain();
    expect(await deliveriesOf(fixture.call.id)).toEqual([]);
    expect(await runner.nextWakeAt()).toBeNull();
  });
});
