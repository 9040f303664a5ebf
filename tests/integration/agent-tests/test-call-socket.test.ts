import http from "node:http";
import type { AddressInfo } from "node:net";
import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { agentTestCalls, calls, creditTransactions, optOuts, webhookDeliveries } from "@/db/schema";
import { startTestCall, getTestCall } from "@/server/services/agent-tests/test-calls";
import { createAgent } from "@/server/services/agents/create-agent";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { stopEmbeddedOpenAiSimulator } from "@/server/simulators/openai-realtime/embedded";
import { loadClip, type VoiceClipId } from "@/server/simulators/voice-clips/clips";
import { ULAW_SILENCE, wavChannelRms } from "@/server/voice/g711";
import { createTestCallServer, type TestCallServer } from "@/server/voice/test-call/test-call-server";
import { getRecordingStore } from "@/server/storage/recording-store";
import { useTestDb } from "../../helpers/db";
import { createConnectedOrganization, useChiliPiperSimulator } from "../meetings/helpers";

const db = useTestDb();
const sim = useChiliPiperSimulator();
let server: http.Server;
let testCalls: TestCallServer;
let origin: string;

beforeAll(async () => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "agent-test-calls-"));
  testCalls = createTestCallServer({ getDb: () => db, now: () => new Date() });
  server = http.createServer((_req, res) => res.writeHead(404).end());
  server.on("upgrade", (request, socket, head) => testCalls.handleUpgrade(request, socket, head));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await testCalls?.close();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  await stopEmbeddedOpenAiSimulator();
});

function connect(ticket: string, headers: Record<string, string> = { origin }) {
  return new WebSocket(`${origin.replace("http", "ws")}/ws/agent-test?ticket=${encodeURIComponent(ticket)}`, { headers });
}

function refusal(ws: WebSocket): Promise<number> {
  return new Promise((resolve) => ws.once("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0)));
}

describe("browser test call socket (/ws/agent-test)", () => {
  it("runs the call's Realtime session in test mode: transcript, tool call, latency, recording, analysis; nothing charged, suppressed or sent", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") });
    const agent = await createAgent(db, { organizationId: organization.id, name: "Ava", bookingConfig, outcomes: [{ name: "Meeting booked" }, { name: "Not interested" }] });
    const started = await startTestCall(db, { organizationId: organization.id, agentId: agent.id, actorUserId: null, contact: { name: "Jordan Lee", email: "jordan@crm.example.com" }, inputVariables: {}, now: new Date() });

    // Wrong origin, then a wrong ticket: refused before anything is read.
    expect(await refusal(connect(started.ticket, { origin: "https://evil.example" }))).toBe(403);
    expect(await refusal(connect("not-a-ticket"))).toBe(401);

    const ws = connect(started.ticket);
    const events: Array<Record<string, unknown>> = [];
    let agentAudioBytes = 0;
    const waitFor = (predicate: () => boolean, ms = 15_000) =>
      new Promise<void>((resolve, reject) => {
        const deadline = Date.now() + ms;
        const check = () => (predicate() ? resolve() : Date.now() > deadline ? reject(new Error(`timed out; events: ${JSON.stringify(events.slice(-5))}`)) : setTimeout(check, 20));
        check();
      });
    ws.on("message", (data) => {
      const message = JSON.parse(data.toString()) as { event: string; media?: { payload: string }; mark?: { name: string } };
      if (message.event === "media") agentAudioBytes += Buffer.from(message.media!.payload, "base64").length;
      else if (message.event === "mark") ws.send(JSON.stringify({ event: "mark", streamSid: "MZtest", mark: message.mark }));
      else events.push(message);
    });
    const closed = new Promise<void>((resolve) => ws.once("close", () => resolve()));
    await new Promise<void>((resolve) => ws.once("open", () => resolve()));
    ws.send(JSON.stringify({ event: "start", streamSid: "MZtest", start: { streamSid: "MZtest", callSid: "CAtest", tracks: ["inbound"] } }));
    let frames = 0;
    const say = async (clip: VoiceClipId) => {
      const audio = Buffer.concat([loadClip(clip), Buffer.alloc(160 * 40, ULAW_SILENCE)]);
      for (let at = 0; at < audio.length; at += 160) {
        ws.send(JSON.stringify({ event: "media", streamSid: "MZtest", media: { track: "inbound", chunk: String(++frames), timestamp: String(frames * 20), payload: audio.subarray(at, at + 160).toString("base64") } }));
        if (frames % 25 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      }
    };
    await new Promise((resolve) => setTimeout(resolve, 300));
    await say("callee.hello");
    await waitFor(() => events.some((event) => event.event === "test.transcript" && event.speaker === "agent"));
    await say("callee.yes-book");
    await waitFor(() => events.some((event) => event.event === "test.hangup"));
    await closed;

    expect(events.filter((event) => event.event === "test.transcript").map((event) => event.speaker)).toEqual(expect.arrayContaining(["customer", "agent"]));
    const tool = events.find((event) => event.event === "test.tool") as { toolCall: { name: string; result: { ok: boolean; message: string } } };
    expect(tool.toolCall).toMatchObject({ name: "book_meeting", result: { ok: true, message: expect.stringContaining("nothing was booked") } });
    expect(events.some((event) => event.event === "test.latency" && typeof event.latencyMs === "number")).toBe(true);
    expect(agentAudioBytes).toBeGreaterThan(8000);

    let view = await getTestCall(db, { organizationId: organization.id, agentId: agent.id, testCallId: started.testCallId, now: new Date() });
    for (let i = 0; i < 100 && view.status !== "completed"; i += 1) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      view = await getTestCall(db, { organizationId: organization.id, agentId: agent.id, testCallId: started.testCallId, now: new Date() });
    }
    expect(view.status).toBe("completed");
    expect(view.lines.map((line) => line.speaker)).toEqual(["customer", "agent", "customer", "agent"]);
    expect(view.toolCalls.map((call) => call.name)).toEqual(["book_meeting", "end_call"]);
    expect(view.latenciesMs.length).toBeGreaterThanOrEqual(1);
    expect(view.callResult).toMatchObject({ resultType: "Goal Completed", followUpMeetingDetails: expect.any(Object) });
    expect(view.recordingUrl).toMatch(/^http/);
    const [row] = await db.select().from(agentTestCalls).where(eq(agentTestCalls.id, started.testCallId));
    const wav = await import("node:fs").then((fs) => fs.readFileSync(path.join(process.env.DATA_DIR!, "recordings", row!.recordingKey!)));
    const [callerRms, agentRms] = wavChannelRms(wav);
    expect(callerRms).toBeGreaterThan(100);
    expect(agentRms).toBeGreaterThan(100);
    expect(getRecordingStore().kind).toBe("local");

    // A test call is not a call: nothing in calls, credits, suppressions or webhook deliveries of the organization.
    expect(await db.select().from(calls).where(eq(calls.organizationId, organization.id))).toEqual([]);
    expect(await db.select().from(creditTransactions).where(eq(creditTransactions.organizationId, organization.id))).toEqual([]);
    expect(await db.select().from(optOuts).where(eq(optOuts.organizationId, organization.id))).toEqual([]);
    expect(await db.select().from(webhookDeliveries).where(eq(webhookDeliveries.organizationId, organization.id))).toEqual([]);

    // The ticket was used up.
    expect(await refusal(connect(started.ticket))).toBe(401);
  });
});
