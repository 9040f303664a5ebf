import { randomBytes } from "node:crypto";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll } from "vitest";
import type { Db } from "@/db";
import { memberships, users, type MemberRole } from "@/db/schema";
import { newId } from "@/server/ids";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { createWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";

/** Webhook secrets are encrypted at rest: tests use their own key instead of one generated into $DATA_DIR. */
export function useTestEncryptionKey() {
  process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");
}

export type ReceivedRequest = { method: string; url: string; headers: Record<string, string>; body: string };
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | "hang";
export type Responder = (request: ReceivedRequest, index: number) => Reply;

/** A real HTTP receiver on 127.0.0.1 that records every request and answers as the test says. */
export async function startReceiver(responder: Responder = () => ({ status: 200, body: "ok" })) {
  const requests: ReceivedRequest[] = [];
  let respond = responder;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
      const request = { method: req.method ?? "", url: req.url ?? "", headers, body: Buffer.concat(chunks).toString("utf8") };
      requests.push(request);
      for (const waiter of waiters.filter((w) => requests.length >= w.count)) waiter.resolve();
      const reply = respond(request, requests.length - 1);
      if (reply === "hang") return;
      res.writeHead(reply.status, { "content-type": "text/plain", ...reply.headers });
      res.end(reply.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  afterAll(close);
  return {
    url: `http://127.0.0.1:${port}/hooks/call-result`,
    port,
    requests,
    setResponder(next: Responder) {
      respond = next;
    },
    /** Resolves once `count` requests have arrived. */
    waitForRequests(count: number) {
      return new Promise<void>((resolve) => {
        if (requests.length >= count) return resolve();
        waiters.push({ count, resolve });
      });
    },
    close,
  };
}

/** An organization, an agent with definitions, and one analysed call of it. */
export async function createAnalyzedCall(db: Db, options: { organizationId?: string; agentId?: string } = {}) {
  let organizationId = options.organizationId;
  let apiKey: string | undefined;
  if (!organizationId) {
    const created = await createTestOrganization(db, { name: "Webhook Org" });
    organizationId = created.organization.id;
    apiKey = created.apiKey;
  }
  const agentId =
    options.agentId ??
    (
      await createTestAgent(db, organizationId, {
        name: "Webhook Agent",
        inputVariables: [{ slug: "company_name", displayName: "Company name", required: true }],
        extractedVariables: [{ slug: "interest_level", type: "DROPDOWN", dropdownOptions: ["high", "low"] }],
        outcomes: [{ name: "Interested" }],
      })
    ).id;
  const sequence = await createTestSequence(db, {
    organizationId,
    agentId,
    name: "Grace Hopper",
    phoneNumber: "+12015550128",
    customInputVariables: { company_name: "Navy" },
    lifecycleStatus: "done",
  });
  const call = await createTestCall(db, {
    organizationId,
    agentId,
    sequenceId: sequence.id,
    scheduledAt: new Date("2026-11-20T15:00:00.000Z"),
    resultType: "Goal Completed",
    duration: 84,
    summary: "Interested; asked for a follow-up.",
    transcript: "Agent: Hello!\nContact: Hi.",
    extractedVariables: { interest_level: "high" },
    outcomes: [{ name: "Interested", reasoning: "Said so." }],
    recordingKey: "recordings/test.wav",
    endedAt: new Date("2026-11-20T15:01:30.000Z"),
    analyzedAt: new Date("2026-11-20T15:01:35.000Z"),
  });
  return { organizationId, agentId, apiKey, sequence, call };
}

export async function createLoopbackEndpoint(db: Db, organizationId: string, url: string, agentIds?: string[]) {
  return createWebhookEndpoint(db, { organizationId, url, agentIds, policy: LOOPBACK_ADDRESS_POLICY });
}

/** A dashboard caller: a real user with a membership of the given role, acting in the organization. */
export async function dashboardCaller(db: Db, organizationId: string, role: MemberRole, now?: () => Date) {
  const userId = newId("user");
  await db.insert(users).values({ id: userId, email: `${userId}@example.test`, name: role });
  await db.insert(memberships).values({ organizationId, userId, role });
  const ctx = createContext({
    db,
    source: "dashboard",
    now,
    getSession: async () => ({ userId, email: `${userId}@example.test`, activeOrgId: null }),
  });
  return createCaller(ctx);
}
