import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { webhookDeliveries, webhookDeliveryAttempts, webhookEndpoints } from "@/db/schema";
import { newId } from "@/server/ids";
import { useTestDb } from "../../helpers/db";
import { createTestOrganization } from "../../factories";
import { createLoopbackEndpoint, useTestEncryptionKey } from "../webhooks/fixtures";
import { apiKeyCaller, consoleCaller } from "./helpers";

useTestEncryptionKey();
const db = useTestDb();

type Attempt = { at: string; ok: boolean; status?: number | null; error?: string; next?: string };

async function delivery(organizationId: string, endpointId: string, attempts: Attempt[], status: "pending" | "succeeded" | "failed") {
  const id = newId("txn").replace("txn.", "whd.");
  const last = attempts.at(-1);
  await db.insert(webhookDeliveries).values({
    id,
    organizationId,
    endpointId,
    kind: "test",
    messageId: `msg_${id}`,
    body: "{}",
    status,
    attemptCount: attempts.length,
    nextAttemptAt: status === "pending" && last?.next ? new Date(last.next) : null,
  });
  await db.insert(webhookDeliveryAttempts).values(
    attempts.map((attempt, index) => ({
      id: `${id}-a${index + 1}`,
      deliveryId: id,
      organizationId,
      attemptNumber: index + 1,
      trigger: "automatic" as const,
      url: "http://127.0.0.1/hooks",
      webhookTimestamp: Math.floor(Date.parse(attempt.at) / 1000),
      attemptedAt: new Date(attempt.at),
      durationMs: 12,
      statusCode: attempt.status === undefined ? (attempt.ok ? 200 : 500) : attempt.status,
      succeeded: attempt.ok,
      error: attempt.error ?? null,
      nextAttemptAt: attempt.next ? new Date(attempt.next) : null,
    })),
  );
}

describe("webhooks.endpointHealth", () => {
  it("shows last success, failing since, consecutive failures and the next retry of each endpoint", async () => {
    const { organization, apiKey } = await createTestOrganization(db, { name: "Webhook health" });
    const { endpoint: healthy } = await createLoopbackEndpoint(db, organization.id, "http://127.0.0.1:9/healthy");
    const { endpoint: failing } = await createLoopbackEndpoint(db, organization.id, "http://127.0.0.1:9/failing");
    const { endpoint: neverSucceeded } = await createLoopbackEndpoint(db, organization.id, "http://127.0.0.1:9/never");
    const { endpoint: quiet } = await createLoopbackEndpoint(db, organization.id, "http://127.0.0.1:9/quiet");
    const { endpoint: off } = await createLoopbackEndpoint(db, organization.id, "http://127.0.0.1:9/off");
    await db.update(webhookEndpoints).set({ enabled: false, disabledReason: "manual" }).where(eq(webhookEndpoints.id, off.endpointId));

    await delivery(organization.id, healthy.endpointId, [{ at: "2026-11-20T10:00:00Z", ok: false }, { at: "2026-11-20T10:01:00Z", ok: true }], "succeeded");
    await delivery(organization.id, failing.endpointId, [{ at: "2026-11-19T09:00:00Z", ok: true }], "succeeded");
    await delivery(
      organization.id,
      failing.endpointId,
      [
        { at: "2026-11-20T10:00:00Z", ok: false, status: 503 },
        { at: "2026-11-20T10:05:00Z", ok: false, status: null, error: "connect ECONNREFUSED", next: "2026-11-20T11:05:00Z" },
      ],
      "pending",
    );
    await delivery(organization.id, failing.endpointId, [{ at: "2026-11-20T10:02:00Z", ok: false, status: 500, next: "2026-11-20T10:32:00Z" }], "pending");
    await delivery(organization.id, neverSucceeded.endpointId, [{ at: "2026-11-20T08:00:00Z", ok: false, status: 404 }], "failed");

    const member = await consoleCaller(db, organization.id, "member");
    const { endpoints } = await member.webhooks.endpointHealth();
    const byId = new Map(endpoints.map((e) => [e.endpointId, e]));
    expect(byId.get(healthy.endpointId)).toMatchObject({ state: "healthy", lastSuccessAt: "2026-11-20T10:01:00.000Z", failingSince: null, consecutiveFailures: 0, nextRetryAt: null, lastError: null });
    expect(byId.get(failing.endpointId)).toMatchObject({
      state: "failing",
      lastSuccessAt: "2026-11-19T09:00:00.000Z",
      failingSince: "2026-11-20T10:00:00.000Z",
      consecutiveFailures: 3,
      nextRetryAt: "2026-11-20T10:32:00.000Z",
      lastError: "connect ECONNREFUSED",
    });
    expect(byId.get(neverSucceeded.endpointId)).toMatchObject({ state: "failing", lastSuccessAt: null, failingSince: "2026-11-20T08:00:00.000Z", consecutiveFailures: 1, lastError: "HTTP 404" });
    expect(byId.get(quiet.endpointId)).toMatchObject({ state: "no-deliveries", lastSuccessAt: null, consecutiveFailures: 0 });
    expect(byId.get(off.endpointId)).toMatchObject({ state: "disabled" });

    const other = await createTestOrganization(db, { name: "Other" });
    expect((await (await consoleCaller(db, other.organization.id, "admin")).webhooks.endpointHealth()).endpoints).toEqual([]);
    await expect(apiKeyCaller(db, apiKey).webhooks.endpointHealth()).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
  });
});
