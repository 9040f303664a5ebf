import { Webhook } from "standardwebhooks";
import { describe, expect, it } from "vitest";
import { attemptWebhookDelivery, createCallDeliveries } from "@/server/services/webhooks/deliveries";
import { useTestDb } from "../../helpers/db";
import { createAnalyzedCall, dashboardCaller, startReceiver, useTestEncryptionKey } from "./fixtures";

// Embedded mode for this file: loopback receivers may be saved through the procedures (the production refusal is in ssrf-guard.test.ts).
process.env.EMBEDDED_MODE = "1";
useTestEncryptionKey();
const db = useTestDb();

describe("webhooks router (dashboard)", () => {
  it("manages an endpoint: the secret is revealed on create and rotate only", async () => {
    const receiver = await startReceiver();
    const { organizationId, agentId } = await createAnalyzedCall(db);
    const admin = await dashboardCaller(db, organizationId, "admin");

    const created = await admin.webhooks.createEndpoint({ url: receiver.url, description: " CRM sync ", agentIds: [agentId, agentId] });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(created.secret.slice(6), "base64")).toHaveLength(32);
    expect(created.endpoint).toMatchObject({ url: receiver.url, description: "CRM sync", enabled: true, agentIds: [agentId], disabledReason: null });

    const listed = await admin.webhooks.listEndpoints();
    expect(listed.endpoints).toEqual([created.endpoint]);
    expect(JSON.stringify(listed)).not.toContain(created.secret.slice(6, 20));
    expect(JSON.stringify(await admin.webhooks.getEndpoint({ endpointId: created.endpoint.endpointId }))).not.toContain(created.secret.slice(6, 20));

    const updated = await admin.webhooks.updateEndpoint({ endpointId: created.endpoint.endpointId, agentIds: [], url: `${receiver.url}?v=2` });
    expect(updated).toMatchObject({ agentIds: [], url: `${receiver.url}?v=2` });
    const disabled = await admin.webhooks.disableEndpoint({ endpointId: created.endpoint.endpointId });
    expect(disabled).toMatchObject({ enabled: false, disabledReason: "manual" });
    const enabled = await admin.webhooks.updateEndpoint({ endpointId: created.endpoint.endpointId, enabled: true });
    expect(enabled).toMatchObject({ enabled: true, disabledReason: null, disabledAt: null });

    const rotated = await admin.webhooks.rotateSecret({ endpointId: created.endpoint.endpointId, graceSeconds: 600 });
    expect(rotated.secret).not.toBe(created.secret);
    expect(rotated.endpoint.previousSecretExpiresAt).not.toBeNull();
    expect(rotated.endpoint.secretFingerprint).not.toBe(created.endpoint.secretFingerprint);

    await expect(admin.webhooks.createEndpoint({ url: receiver.url, agentIds: ["agent.unknown"] })).rejects.toMatchObject({
      cause: { code: "AGENT_NOT_FOUND" },
    });
    await expect(admin.webhooks.createEndpoint({ url: "http://169.254.169.254/latest" })).rejects.toMatchObject({
      cause: { code: "INVALID_REQUEST" },
    });

    expect(await admin.webhooks.deleteEndpoint({ endpointId: created.endpoint.endpointId })).toEqual({
      endpointId: created.endpoint.endpointId,
      deleted: true,
    });
    expect((await admin.webhooks.listEndpoints()).endpoints).toEqual([]);
    await expect(admin.webhooks.getEndpoint({ endpointId: created.endpoint.endpointId })).rejects.toMatchObject({ cause: { code: "NOT_FOUND" } });
  });

  it("lets members read but only admins change, and hides other organizations' endpoints", async () => {
    const receiver = await startReceiver();
    const { organizationId } = await createAnalyzedCall(db);
    const admin = await dashboardCaller(db, organizationId, "admin");
    const member = await dashboardCaller(db, organizationId, "member");
    const support = await dashboardCaller(db, organizationId, "support");
    const { endpoint } = await admin.webhooks.createEndpoint({ url: receiver.url });

    expect((await member.webhooks.listEndpoints()).endpoints).toHaveLength(1);
    expect((await support.webhooks.listDeliveries({})).deliveries).toEqual([]);
    for (const caller of [member, support]) {
      await expect(caller.webhooks.createEndpoint({ url: receiver.url })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
      await expect(caller.webhooks.rotateSecret({ endpointId: endpoint.endpointId })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
      await expect(caller.webhooks.deleteEndpoint({ endpointId: endpoint.endpointId })).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    }

    const other = await createAnalyzedCall(db);
    const outsider = await dashboardCaller(db, other.organizationId, "admin");
    expect((await outsider.webhooks.listEndpoints()).endpoints).toEqual([]);
    await expect(outsider.webhooks.updateEndpoint({ endpointId: endpoint.endpointId, enabled: false })).rejects.toMatchObject({
      cause: { code: "NOT_FOUND" },
    });
    await expect(outsider.webhooks.sendTestEvent({ endpointId: endpoint.endpointId, agentId: other.agentId })).rejects.toMatchObject({
      cause: { code: "NOT_FOUND" },
    });
  });

  it("shows the delivery log with attempts, replays a delivery, and sends a signed test event", async () => {
    const receiver = await startReceiver((_request, index) => (index === 0 ? { status: 500, body: "down" } : { status: 200, body: "ok" }));
    const fixture = await createAnalyzedCall(db);
    const admin = await dashboardCaller(db, fixture.organizationId, "admin");
    const { endpoint, secret } = await admin.webhooks.createEndpoint({ url: receiver.url });

    // The first automatic attempt fails (500) …
    const { deliveryIds } = await createCallDeliveries(db, { callId: fixture.call.id });
    await attemptWebhookDelivery(db, { deliveryId: deliveryIds[0]!, trigger: "automatic", automaticAttempt: 1 });
    const page = await admin.webhooks.listDeliveries({ endpointId: endpoint.endpointId });
    expect(page.deliveries).toHaveLength(1);
    expect(page.deliveries[0]).toMatchObject({ callId: fixture.call.id, status: "pending", attemptCount: 1, lastStatusCode: 500, kind: "call.result" });

    // … the admin replays it at once.
    const replay = await admin.webhooks.replayDelivery({ deliveryId: deliveryIds[0]! });
    expect(replay).toMatchObject({ outcome: "succeeded", statusCode: 200, attemptNumber: 2 });
    const detail = await admin.webhooks.getDelivery({ deliveryId: deliveryIds[0]! });
    expect(detail.status).toBe("succeeded");
    expect(detail.attempts.map((a) => [a.trigger, a.statusCode, a.responseSnippet])).toEqual([
      ["automatic", 500, "down"],
      ["replay", 200, "ok"],
    ]);
    expect(JSON.parse(detail.body)).toMatchObject({ callId: fixture.call.id });
    expect(receiver.requests[1]!.headers["webhook-id"]).toBe(receiver.requests[0]!.headers["webhook-id"]);

    // Test event: the agent's sample, signed with the endpoint's secret, its own webhook-id, logged as kind "test".
    const test = await admin.webhooks.sendTestEvent({ endpointId: endpoint.endpointId, agentId: fixture.agentId });
    expect(test).toMatchObject({ outcome: "succeeded", statusCode: 200, attemptNumber: 1 });
    const sent = receiver.requests.at(-1)!;
    const body = new Webhook(secret).verify(sent.body, sent.headers) as Record<string, unknown>;
    expect(body).toMatchObject({ agentId: fixture.agentId, customInputVariables: { company_name: expect.any(String) } });
    expect(sent.headers["webhook-id"]).toMatch(/^msg_test_/);
    const tests = await admin.webhooks.listDeliveries({ status: "succeeded" });
    expect(tests.deliveries.map((d) => d.kind)).toEqual(["test", "call.result"]);

    // Paging: newest first, by cursor.
    const first = await admin.webhooks.listDeliveries({ limit: 1 });
    expect(first.deliveries[0]!.kind).toBe("test");
    const second = await admin.webhooks.listDeliveries({ limit: 1, cursor: first.nextCursor! });
    expect(second.deliveries[0]!.deliveryId).toBe(deliveryIds[0]);
    expect(second.nextCursor).toBeNull();
  });
});
