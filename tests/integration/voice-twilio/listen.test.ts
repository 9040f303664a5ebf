import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, describe, expect, inject, it } from "vitest";
import WebSocket from "ws";
import { eq } from "drizzle-orm";
import { encode } from "next-auth/jwt";
import { createDb } from "@/db";
import { users } from "@/db/schema";
import { readUpgradeActor } from "@/server/auth/session-cookie";
import { ulawRms } from "@/server/voice/g711";
import { ListenHub } from "@/server/voice/listen/listen-hub";
import { createListenSocketHandler } from "@/server/voice/listen/listen-socket";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestCall, createTestSequence } from "@/tests/factories";
import { createOrgWithRoles } from "../dashboard/helpers";

const db = useTestDb();
const SECRET = "listen-test-secret-0123456789abcdef";
const handles: Array<ReturnType<typeof createDb>> = [];
const hubs: ListenHub[] = [];
afterAll(async () => {
  await Promise.all(hubs.map((hub) => hub.close()));
  await Promise.all(handles.map((handle) => handle.close()));
});

/** One "instance": its own hub on its own connection to the same database. */
function instance(): ListenHub {
  const handle = createDb(inject("databaseUrl"), { max: 2 });
  handles.push(handle);
  const hub = new ListenHub({ sql: handle.sql, log: () => {} });
  hubs.push(hub);
  return hub;
}

describe("listening in on a live call", () => {
  it("reads the console's session from the upgrade's cookie, and refuses a revoked one", async () => {
    const { people } = await createOrgWithRoles(db);
    const [user] = await db.select({ sessionVersion: users.sessionVersion }).from(users).where(eq(users.id, people.support.userId));
    const cookie = async (sv: number) => `next-auth.session-token=${await encode({ token: { uid: people.support.userId, sv, email: people.support.email }, secret: SECRET })}`;
    const request = (header: string) => ({ headers: { cookie: header, host: "localhost" } }) as never;
    expect(await readUpgradeActor(db, request(await cookie(user!.sessionVersion)), SECRET)).toMatchObject({ userId: people.support.userId });
    expect(await readUpgradeActor(db, request(await cookie(user!.sessionVersion + 1)), SECRET)).toBeNull();
    expect(await readUpgradeActor(db, request("next-auth.session-token=forged"), SECRET)).toBeNull();
  });

  it("reaches a listener on another instance through Postgres LISTEN/NOTIFY, well under a second behind", async () => {
    const holder = instance();
    const other = instance();
    const callId = `call.listen-${Date.now()}`;
    const source = holder.registerSource(callId);
    expect(source.wanted()).toBe(false);
    const sentAt = new Map<number, number>();
    const delays: number[] = [];
    const unsubscribe = other.subscribe(callId, (audio) => {
      // Each batch carries the stamps of its frames in its first byte pairs (a test signal, not audio).
      for (let offset = 0; offset < audio.length; offset += 160) {
        const stamp = audio.readUInt16LE(offset);
        if (sentAt.has(stamp)) delays.push(Date.now() - sentAt.get(stamp)!);
      }
    });
    await expect.poll(() => source.wanted(), { timeout: 5000 }).toBe(true);
    for (let i = 1; i <= 100; i += 1) {
      const frame = Buffer.alloc(160, 0xff);
      frame.writeUInt16LE(i, 0);
      sentAt.set(i, Date.now());
      source.push(frame);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    await expect.poll(() => delays.length, { timeout: 5000 }).toBeGreaterThanOrEqual(95);
    const sorted = [...delays].sort((a, b) => a - b);
    const p95 = sorted[Math.floor(sorted.length * 0.95)]!;
    console.log(`listen across instances: ${delays.length} frames, median ${sorted[Math.floor(sorted.length / 2)]} ms, p95 ${p95} ms behind`);
    expect(p95).toBeLessThan(1000);
    unsubscribe();
    source.close();
  });

  it("opens only for the call's organization, for roles that may listen, while the call is live; then streams audio", async () => {
    const mine = await createOrgWithRoles(db);
    const theirs = await createOrgWithRoles(db);
    const agent = await createTestAgent(db, mine.organization.id);
    const sequence = await createTestSequence(db, { organizationId: mine.organization.id, agentId: agent.id });
    const live = await createTestCall(db, { organizationId: mine.organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date(), resultType: "Calling" });
    const over = await createTestCall(db, { organizationId: mine.organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date(), stepNumber: 2, resultType: "Goal Completed" });
    const hub = instance();
    const listen = createListenSocketHandler({
      getDb: () => db,
      hub: () => hub,
      // The session cookie's person (next-auth is exercised by the Playwright test): here a header names them.
      readActor: async (request) => {
        const userId = request.headers["x-test-user"];
        return typeof userId === "string" ? { userId, email: "", activeOrgId: null } : null;
      },
      simulatedAudio: () => true,
    });
    const server = http.createServer((_req, res) => res.writeHead(404).end());
    server.on("upgrade", (request, socket, head) => listen.handle(request, socket, head));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = (callId: string) => `ws://127.0.0.1:${(server.address() as AddressInfo).port}/ws/listen?callId=${encodeURIComponent(callId)}`;
    // The console's page: its Origin is the app's (a socket without one is refused, like a foreign one).
    const pageOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const open = (callId: string, userId: string | null, origin: string | null = pageOrigin) =>
      new Promise<{ status: number; ws?: WebSocket; messages: Array<Buffer | string> }>((resolve) => {
        const messages: Array<Buffer | string> = [];
        const ws = new WebSocket(url(callId), { headers: { ...(userId ? { "x-test-user": userId } : {}), ...(origin ? { origin } : {}) } });
        ws.on("message", (data, binary) => messages.push(binary ? (data as Buffer) : data.toString()));
        ws.once("open", () => resolve({ status: 101, ws, messages }));
        ws.once("unexpected-response", (_request, response) => resolve({ status: response.statusCode ?? 0, messages }));
        ws.once("error", () => resolve({ status: 0, messages }));
      });
    try {
      expect((await open(live.id, null)).status).toBe(401);
      expect((await open(live.id, theirs.people.admin.userId)).status).toBe(404);
      expect((await open(live.id, mine.people.member.userId)).status).toBe(403);
      expect((await open(over.id, mine.people.support.userId)).status).toBe(409);
      expect((await open(live.id, mine.people.support.userId, "https://evil.example")).status).toBe(403);
      expect((await open(live.id, mine.people.support.userId, null)).status).toBe(403);
      expect((await open("call.\u0000x", mine.people.support.userId)).status).toBe(400);
      const opened = await open(live.id, mine.people.support.userId);
      expect(opened.status).toBe(101);
      const messages = opened.messages;
      await expect.poll(() => messages.filter((message) => typeof message !== "string").length, { timeout: 5000 }).toBeGreaterThan(40);
      expect(JSON.parse(messages[0] as string)).toMatchObject({ type: "ready", encoding: "mulaw", sampleRate: 8000 });
      const audio = Buffer.concat(messages.filter((message): message is Buffer => typeof message !== "string"));
      expect(ulawRms(audio)).toBeGreaterThan(300);
      // Leaving changes nothing on the call.
      opened.ws!.close();
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(hub.hasSource(live.id)).toBe(false);
    } finally {
      listen.close();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
