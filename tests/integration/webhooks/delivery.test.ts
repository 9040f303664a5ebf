import { eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { webhookDeliveries, webhookEndpoints } from "@/db/schema";
import { ZCallEventPayloadSchema } from "@/server/schemas/call";
import { findCallMetadataRow } from "@/db/queries/calls";
import { toCallEventPayload } from "@/server/services/calls/call-metadata";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import {
  attemptWebhookDelivery,
  createCallDeliveries,
  getWebhookDelivery,
  replayWebhookDelivery,
} from "@/server/services/webhooks/deliveries";
import { rotateWebhookSecret } from "@/server/services/webhooks/manage-endpoints";
import { messageIdForCall } from "@/server/services/webhooks/signing";
import { useTestDb } from "../../helpers/db";
import { createAnalyzedCall, createLoopbackEndpoint, startReceiver, useTestEncryptionKey } from "./fixtures";

useTestEncryptionKey();
const db = useTestDb();
const policy = LOOPBACK_ADDRESS_POLICY;

async function oneDelivery(url: string) {
  const fixture = await createAnalyzedCall(db);
  const { endpoint, secret } = await createLoopbackEndpoint(db, fixture.organizationId, url);
  const { deliveryIds } = await createCallDeliveries(db, { callId: fixture.call.id });
  expect(deliveryIds).toHaveLength(1);
  return { ...fixture, endpoint, secret, deliveryId: deliveryIds[0]! };
}

describe("call-result delivery", () => {
  it("POSTs the call result, signed per Standard Webhooks, verifiable with the standardwebhooks library", async () => {
    const receiver = await startReceiver();
    const { call, secret, deliveryId } = await oneDelivery(receiver.url);

    const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, policy });
    expect(result).toMatchObject({ outcome: "succeeded", statusCode: 200, attemptNumber: 1, retryInMs: null });

    expect(receiver.requests).toHaveLength(1);
    const request = receiver.requests[0]!;
    expect(request.method).toBe("POST");
    expect(request.url).toBe("/hooks/call-result");
    expect(request.headers["content-type"]).toBe("application/json");
    expect(request.headers["webhook-id"]).toBe(messageIdForCall(call.id));
    expect(Number(request.headers["webhook-timestamp"])).toBeGreaterThan(Date.now() / 1000 - 60);

    const verified = new Webhook(secret).verify(request.body, request.headers) as Record<string, unknown>;
    const expected = toCallEventPayload((await findCallMetadataRow(db, { callId: call.id, organizationId: null }))!);
    expect(verified).toEqual(expected);
    expect(ZCallEventPayloadSchema.strict().parse(verified)).toEqual(expected);
    expect(verified).not.toHaveProperty("recordingUrl");
    expect(verified).toMatchObject({ callId: call.id, callStatus: "goal-completed", customInputVariables: { company_name: "Navy" } });

    // A tampered body or another secret does not verify.
    expect(() => new Webhook(secret).verify(request.body.replace("Navy", "Army"), request.headers)).toThrow();
    expect(() => new Webhook(`whsec_${Buffer.alloc(32, 7).toString("base64")}`).verify(request.body, request.headers)).toThrow();

    const logged = await getWebhookDelivery(db, { organizationId: call.organizationId, deliveryId });
    expect(logged).toMatchObject({ status: "succeeded", attemptCount: 1, lastStatusCode: 200, messageId: messageIdForCall(call.id) });
    expect(logged.attempts).toHaveLength(1);
    expect(logged.attempts[0]).toMatchObject({ attemptNumber: 1, trigger: "automatic", statusCode: 200, succeeded: true, responseSnippet: "ok", error: null });
    expect(logged.body).toBe(request.body);
  });

  it("retries non-2xx on the schedule with one webhook-id, recording every attempt", async () => {
    const receiver = await startReceiver((_request, index) => (index < 2 ? { status: 500, body: "boom" } : { status: 200 }));
    const { call, secret, deliveryId, organizationId } = await oneDelivery(receiver.url);
    const start = new Date();

    const first = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, now: start, policy });
    expect(first).toMatchObject({ outcome: "retry", statusCode: 500, retryInMs: 5_000 });
    const second = await attemptWebhookDelivery(db, {
      deliveryId,
      trigger: "automatic",
      automaticAttempt: 2,
      now: new Date(start.getTime() + 5_000),
      policy,
    });
    expect(second).toMatchObject({ outcome: "retry", statusCode: 500, retryInMs: 30_000 });
    const third = await attemptWebhookDelivery(db, {
      deliveryId,
      trigger: "automatic",
      automaticAttempt: 3,
      now: new Date(start.getTime() + 35_000),
      policy,
    });
    expect(third).toMatchObject({ outcome: "succeeded", statusCode: 200 });

    expect(receiver.requests.map((r) => r.headers["webhook-id"])).toEqual(Array(3).fill(messageIdForCall(call.id)));
    expect(new Set(receiver.requests.map((r) => r.body)).size).toBe(1);
    for (const request of receiver.requests) expect(() => new Webhook(secret).verify(request.body, request.headers)).not.toThrow();

    const logged = await getWebhookDelivery(db, { organizationId, deliveryId });
    expect(logged.attempts.map((a) => [a.attemptNumber, a.statusCode, a.succeeded])).toEqual([
      [1, 500, false],
      [2, 500, false],
      [3, 200, true],
    ]);
    expect(logged.attempts[0]!.responseSnippet).toBe("boom");
    expect(logged.attempts[0]!.nextAttemptAt).toBe(new Date(start.getTime() + 5_000).toISOString());
    expect(logged.attempts[1]!.nextAttemptAt).toBe(new Date(start.getTime() + 35_000).toISOString());
    expect(logged).toMatchObject({ status: "succeeded", attemptCount: 3, nextAttemptAt: null });
  });

  it("gives up after the ninth automatic attempt (8 retries) and marks the delivery failed", async () => {
    const receiver = await startReceiver(() => ({ status: 502 }));
    const { deliveryId, organizationId } = await oneDelivery(receiver.url);
    const delays: Array<number | null> = [];
    for (let attempt = 1; attempt <= 9; attempt += 1) {
      const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: attempt, policy });
      delays.push(result.retryInMs);
      if (attempt === 9) expect(result.outcome).toBe("failed");
    }
    expect(delays).toEqual([5_000, 30_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000, null]);
    expect((await getWebhookDelivery(db, { organizationId, deliveryId })).status).toBe("failed");
  });

  it("honours Retry-After on 429 and 503 (seconds and HTTP-date), never retrying earlier than the schedule", async () => {
    const now = new Date();
    const replies = [
      { status: 429, headers: { "retry-after": "120" } },
      { status: 503, headers: { "retry-after": new Date(now.getTime() + 600_000).toUTCString() } },
      { status: 429, headers: { "retry-after": "1" } },
    ];
    const receiver = await startReceiver((_request, index) => replies[index]!);
    const { deliveryId } = await oneDelivery(receiver.url);
    const a = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, now, policy });
    expect(a.retryInMs).toBe(120_000);
    const b = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 2, now, policy });
    expect(b.retryInMs).toBeGreaterThanOrEqual(599_000);
    expect(b.retryInMs).toBeLessThanOrEqual(600_000);
    const c = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 3, now, policy });
    expect(c.retryInMs).toBe(300_000);
  });

  it("times out a receiver that never answers (10 s) and schedules a retry", async () => {
    const receiver = await startReceiver(() => "hang");
    const { deliveryId, organizationId } = await oneDelivery(receiver.url);
    const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, policy });
    expect(result).toMatchObject({ outcome: "retry", statusCode: null, retryInMs: 5_000 });
    expect(result.error).toMatch(/timed out after 10 s/i);
    const attempt = (await getWebhookDelivery(db, { organizationId, deliveryId })).attempts[0]!;
    expect(attempt.durationMs).toBeGreaterThanOrEqual(10_000);
    expect(attempt.statusCode).toBeNull();
    expect(receiver.requests).toHaveLength(1);
  }, 20_000);

  it("records a connection error as a failed attempt", async () => {
    const receiver = await startReceiver();
    const url = receiver.url;
    await receiver.close();
    const { deliveryId } = await oneDelivery(url);
    const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, policy });
    expect(result).toMatchObject({ outcome: "retry", statusCode: null, error: "Connection refused." });
  });

  it("a 410 Gone disables the endpoint: no retry, and its other pending deliveries are cancelled", async () => {
    const receiver = await startReceiver(() => ({ status: 410, body: "gone" }));
    const fixture = await oneDelivery(receiver.url);
    const other = await createAnalyzedCall(db, { organizationId: fixture.organizationId, agentId: fixture.agentId });
    const { deliveryIds } = await createCallDeliveries(db, { callId: other.call.id });

    const result = await attemptWebhookDelivery(db, { deliveryId: fixture.deliveryId, trigger: "automatic", automaticAttempt: 1, policy });
    expect(result).toMatchObject({ outcome: "failed", statusCode: 410, retryInMs: null, endpointDisabled: true });
    const [endpoint] = await db.select().from(webhookEndpoints).where(eq(webhookEndpoints.id, fixture.endpoint.endpointId));
    expect(endpoint).toMatchObject({ enabled: false, disabledReason: "gone" });

    const next = await attemptWebhookDelivery(db, { deliveryId: deliveryIds[0]!, trigger: "automatic", automaticAttempt: 1, policy });
    expect(next.outcome).toBe("cancelled");
    expect(receiver.requests).toHaveLength(1);
    // A later call creates no delivery for the disabled endpoint.
    const third = await createAnalyzedCall(db, { organizationId: fixture.organizationId, agentId: fixture.agentId });
    expect((await createCallDeliveries(db, { callId: third.call.id })).deliveryIds).toEqual([]);
  });

  it("replays a past delivery with the same webhook-id and body, a new timestamp and signature", async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const { deliveryId, organizationId, secret, call } = await oneDelivery(receiver.url);
    const start = new Date(Date.now() - 120_000);
    for (let attempt = 1; attempt <= 9; attempt += 1) {
      await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: attempt, now: start, policy });
    }
    expect((await getWebhookDelivery(db, { organizationId, deliveryId })).status).toBe("failed");

    receiver.setResponder(() => ({ status: 204 }));
    const replay = await replayWebhookDelivery(db, { organizationId, deliveryId, policy });
    expect(replay).toMatchObject({ deliveryId, outcome: "succeeded", statusCode: 204, attemptNumber: 10 });

    const original = receiver.requests[0]!;
    const replayed = receiver.requests.at(-1)!;
    expect(replayed.headers["webhook-id"]).toBe(original.headers["webhook-id"]);
    expect(replayed.headers["webhook-id"]).toBe(messageIdForCall(call.id));
    expect(replayed.body).toBe(original.body);
    expect(replayed.headers["webhook-timestamp"]).not.toBe(original.headers["webhook-timestamp"]);
    expect(replayed.headers["webhook-signature"]).not.toBe(original.headers["webhook-signature"]);
    expect(() => new Webhook(secret).verify(replayed.body, replayed.headers)).not.toThrow();

    const logged = await getWebhookDelivery(db, { organizationId, deliveryId });
    expect(logged.status).toBe("succeeded");
    expect(logged.attempts.at(-1)).toMatchObject({ attemptNumber: 10, trigger: "replay", statusCode: 204, succeeded: true });

    // Another organization cannot replay it.
    const stranger = await createAnalyzedCall(db);
    await expect(replayWebhookDelivery(db, { organizationId: stranger.organizationId, deliveryId, policy })).rejects.toMatchObject({ code: "NOT_FOUND" });
  });

  it("a failed replay of a delivery still retrying leaves its automatic schedule alone", async () => {
    const receiver = await startReceiver(() => ({ status: 500 }));
    const { deliveryId, organizationId } = await oneDelivery(receiver.url);
    const start = new Date();
    await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, now: start, policy });
    const replay = await replayWebhookDelivery(db, { organizationId, deliveryId, now: new Date(start.getTime() + 1_000), policy });
    expect(replay).toMatchObject({ outcome: "failed", statusCode: 500, attemptNumber: 2 });
    const logged = await getWebhookDelivery(db, { organizationId, deliveryId });
    expect(logged).toMatchObject({ status: "pending", attemptCount: 2, nextAttemptAt: new Date(start.getTime() + 5_000).toISOString() });
    expect(logged.attempts.map((a) => a.trigger)).toEqual(["automatic", "replay"]);
  });

  it("after a secret rotation both the old and the new secret verify until the grace period ends", async () => {
    const receiver = await startReceiver();
    const fixture = await oneDelivery(receiver.url);
    const oldSecret = fixture.secret;
    const now = new Date();
    const rotated = await rotateWebhookSecret(db, {
      organizationId: fixture.organizationId,
      endpointId: fixture.endpoint.endpointId,
      graceSeconds: 3600,
      now,
    });
    const newSecret = rotated.secret;
    expect(newSecret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    expect(newSecret).not.toBe(oldSecret);
    expect(rotated.endpoint.previousSecretExpiresAt).toBe(new Date(now.getTime() + 3_600_000).toISOString());

    await attemptWebhookDelivery(db, { deliveryId: fixture.deliveryId, trigger: "automatic", automaticAttempt: 1, now, policy });
    const during = receiver.requests[0]!;
    expect(during.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(() => new Webhook(oldSecret).verify(during.body, during.headers)).not.toThrow();
    expect(() => new Webhook(newSecret).verify(during.body, during.headers)).not.toThrow();

    // After the grace period only the new secret signs (a replay, clocked just past the expiry).
    const after = new Date(now.getTime() + 3_600_000 + 1_000);
    await attemptWebhookDelivery(db, { deliveryId: fixture.deliveryId, trigger: "replay", now: after, policy });
    const later = receiver.requests[1]!;
    expect(later.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    const signed = new Webhook(newSecret).sign(later.headers["webhook-id"]!, after, later.body);
    expect(later.headers["webhook-signature"]).toBe(signed);
    expect(new Webhook(oldSecret).sign(later.headers["webhook-id"]!, after, later.body)).not.toBe(later.headers["webhook-signature"]);
  });

  it("filters by agent, and a repeated call/analyzed creates no second delivery", async () => {
    const receiver = await startReceiver();
    const fixture = await createAnalyzedCall(db);
    const otherAgent = await createAnalyzedCall(db, { organizationId: fixture.organizationId });
    await createLoopbackEndpoint(db, fixture.organizationId, receiver.url, [fixture.agentId]);
    const everyAgent = await createLoopbackEndpoint(db, fixture.organizationId, `${receiver.url}?all=1`);

    const first = await createCallDeliveries(db, { callId: fixture.call.id });
    expect(first.deliveryIds).toHaveLength(2);
    expect((await createCallDeliveries(db, { callId: fixture.call.id })).deliveryIds).toEqual([]);
    const filtered = await createCallDeliveries(db, { callId: otherAgent.call.id });
    expect(filtered.deliveryIds).toHaveLength(1);
    const [row] = await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.id, filtered.deliveryIds[0]!));
    expect(row!.endpointId).toBe(everyAgent.endpoint.endpointId);
    expect((await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.callId, fixture.call.id))).map((d) => d.messageId)).toEqual([
      messageIdForCall(fixture.call.id),
      messageIdForCall(fixture.call.id),
    ]);
  });

  it("deliveries of different calls do not wait on each other: a hanging receiver does not hold up another", async () => {
    const slow = await startReceiver(() => "hang");
    const fast = await startReceiver();
    const a = await oneDelivery(slow.url);
    const b = await oneDelivery(fast.url);
    let slowSettled = false;
    const slowAttempt = attemptWebhookDelivery(db, { deliveryId: a.deliveryId, trigger: "automatic", automaticAttempt: 1, policy }).then((r) => {
      slowSettled = true;
      return r;
    });
    await slow.waitForRequests(1);
    const fastResult = await attemptWebhookDelivery(db, { deliveryId: b.deliveryId, trigger: "automatic", automaticAttempt: 1, policy });
    expect(fastResult.outcome).toBe("succeeded");
    expect(slowSettled).toBe(false);
    await slow.close();
    expect((await slowAttempt).outcome).toBe("retry");
  });
});
