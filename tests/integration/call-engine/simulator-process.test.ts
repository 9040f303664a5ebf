import { fork } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import path from "node:path";
import { Readable } from "node:stream";
import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { POST as voiceEventsRoute } from "@/app/api/voice/events/route";
import type { Db } from "@/db";
import { callTranscriptLines } from "@/db/schema";
import { buildPlaceCallRequest } from "@/server/services/call-engine/dial-call";
import { hangUpCall } from "@/server/services/calls/live-calls";
import { localRecordingPath } from "@/server/storage/recording-store";
import { voiceEventsSecret } from "@/server/voice/signature";
import { createSimulatorProcessEngine, SimulatorProcessDownError, type SimulatorProcessEngine } from "@/server/voice/simulator/process-engine";
import { planSimulatedCall } from "@/server/voice/simulator/script";
import { createConversationWav, seedOf } from "@/server/voice/simulator/wav";
import { useTestDb } from "@/tests/helpers/db";
import { callsOf, createEngineOrganization, enroll, useCallEngines, type CallEngineHarness } from "./harness";

/**
 * The simulator in its own process (VOICE_SIMULATOR_PROCESS=separate, the app's default): the dialer places calls over
 * IPC, the child posts the signed events to a real HTTP entry point (the `/api/voice/events` route handler behind a
 * node server) and serves the recordings the entry point downloads; hang-up, a killed child and a killed parent.
 */
const db = useTestDb();
const start = useCallEngines(db, "simulator-process");
const START = new Date("2026-03-02T15:00:00Z");

/** `POST /api/voice/events` over HTTP, as the app serves it. */
const entryPoint = http.createServer((req, res) => {
  void (async () => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const headers = new Headers();
    for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(key, value);
    const response = await voiceEventsRoute(new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) }));
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (response.body) Readable.fromWeb(response.body as Parameters<typeof Readable.fromWeb>[0]).pipe(res);
    else res.end();
  })();
});
let simulator: SimulatorProcessEngine;

beforeAll(async () => {
  await new Promise<void>((resolve) => entryPoint.listen(0, "127.0.0.1", resolve));
  simulator = createSimulatorProcessEngine({
    eventsUrl: `http://127.0.0.1:${(entryPoint.address() as AddressInfo).port}/api/voice/events`,
    secret: voiceEventsSecret(),
    // 50 ms per simulated second: a 3-minute answered call talks for ~9 s, time enough to hang it up.
    msPerSimulatedSecond: 50,
    maxConversationMs: 20_000,
    transcriptBatchMs: 100,
    // Long enough for the test to see the engine without a process between a death and the restart.
    restartDelaysMs: [1500],
  });
  await simulator.ready();
}, 120_000);

afterAll(async () => {
  await simulator?.stop();
  await new Promise<void>((resolve) => entryPoint.close(() => resolve()));
});

async function until<T>(what: string, probe: () => Promise<T | null | undefined | false>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Runs the engine until the sequence's first call has its final result (the child reports on real timers). */
function finalCall(engine: CallEngineHarness, sequenceId: string) {
  return until(`the final result of ${sequenceId}`, async () => {
    await engine.runner.drain();
    const [call] = await callsOf(db, sequenceId);
    return call && !["Scheduled", "Calling", "Processing Analysis"].includes(call.resultType) ? call : null;
  });
}

async function dialed(engine: CallEngineHarness, db: Db, phoneNumber: string) {
  const { organization, agent } = await createEngineOrganization(db);
  const { sequenceId } = await enroll(db, { agent, phoneNumber, now: START });
  await engine.runner.drain();
  const [call] = await callsOf(db, sequenceId);
  expect(call).toMatchObject({ resultType: "Calling", providerCallId: expect.stringMatching(/^sim-/) });
  return { organizationId: organization.id, sequenceId, call: call! };
}

describe("the voice simulator in its own process", () => {
  it("places a call over IPC (idempotent by callId); the events reach the entry point over HTTP and the recording is downloaded from the child's host", async () => {
    expect(simulator.pid()).not.toBe(process.pid);
    const engine = await start({ start: START, voiceEngine: simulator });
    const { organizationId, sequenceId, call } = await dialed(engine, db, "+12025550502"); // digit 2: voicemail, recorded
    expect(await simulator.placeCall(await buildPlaceCallRequest(db, call.id))).toEqual({ providerCallId: call.providerCallId, alreadyPlaced: true });

    const done = await finalCall(engine, sequenceId);
    expect(done.resultType).toBe("Voicemail");
    expect(done.recordingKey).toBe(`${organizationId}/${call.id}.wav`);
    const expected = Buffer.from(createConversationWav({ seconds: Math.max(1, done.duration!), seed: seedOf(call.id) }));
    expect(readFileSync(localRecordingPath(done.recordingKey!)).equals(expected)).toBe(true);
    expect(engine.analyzed.map((event) => event.callId)).toEqual([call.id]);
    // The watchdog's question, over IPC: the child's record of the call.
    expect(await simulator.callState({ callId: call.id, providerCallId: call.providerCallId! })).toMatchObject({ state: "ended", disposition: "voicemail", durationSeconds: done.duration });
    expect(await simulator.callState({ callId: call.id, providerCallId: "sim-not-ours" })).toEqual({ state: "unknown" });
  });

  it("hangs up a live call: it ends at once with what was said so far; a second hang-up finds no live call", async () => {
    const engine = await start({ start: START, voiceEngine: simulator });
    const { organizationId, sequenceId, call } = await dialed(engine, db, "+12025550500"); // digit 0: a long answered call
    await until("a live transcript line", async () => (await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, call.id))).length > 0);

    expect(await simulator.callState({ callId: call.id, providerCallId: call.providerCallId! })).toEqual({ state: "active" });
    expect(await hangUpCall(db, { organizationId, callId: call.id, engine: simulator })).toEqual({ callId: call.id, hungUp: true });
    const done = await finalCall(engine, sequenceId);
    const request = await buildPlaceCallRequest(db, call.id);
    expect(done.duration).toBeGreaterThan(0);
    expect(done.duration).toBeLessThan(planSimulatedCall(request).durationSeconds);
    expect(await simulator.endCall!(call.id)).toBe(false);
  });

  it("a killed simulator process: replaced; a dial meanwhile fails as a provider outage and is retried, the next ones work", async () => {
    const engine = await start({ start: START, voiceEngine: simulator });
    const before = simulator.pid()!;
    const { call: inAir } = await dialed(engine, db, "+12025550500");
    process.kill(before, "SIGKILL");
    await until("the engine to notice the death", async () => simulator.pid() === null);
    await expect(simulator.placeCall(await buildPlaceCallRequest(db, inAir.id))).rejects.toBeInstanceOf(SimulatorProcessDownError);
    expect(await simulator.endCall!(inAir.id)).toBe(false);
    // Nobody to ask: the watchdog waits rather than fail a call that may be in the air.
    await expect(simulator.callState({ callId: inAir.id, providerCallId: inAir.providerCallId! })).rejects.toBeInstanceOf(SimulatorProcessDownError);

    // Dialed while no simulator process runs: the dialer keeps the call for a later attempt, as in a provider outage.
    const { agent } = await createEngineOrganization(db);
    const { sequenceId: retried } = await enroll(db, { agent, phoneNumber: "+12025550522", now: START });
    await engine.runner.drain();
    const [waiting] = await callsOf(db, retried);
    expect(waiting).toMatchObject({ resultType: "Calling", providerCallId: null });

    await until("a new simulator process", async () => simulator.pid() !== null && simulator.pid() !== before);
    await simulator.ready();
    // The new process never heard of the call the dead one had in the air: lost, the watchdog fails it.
    expect(await simulator.callState({ callId: inAir.id, providerCallId: inAir.providerCallId! })).toEqual({ state: "unknown" });
    const { sequenceId } = await dialed(engine, db, "+12025550541");
    expect((await finalCall(engine, sequenceId)).resultType).toBe("Goal Not Completed");
    await engine.advance(60_000);
    expect((await finalCall(engine, retried)).resultType).toBe("Voicemail");
  });

  it("exits when its app is killed (SIGKILL): no orphan", async () => {
    const app = fork(path.resolve("tests/helpers/simulator-process-parent.ts"), [], { execArgv: ["--import", "tsx"], stdio: ["ignore", "inherit", "inherit", "ipc"] });
    const { simulatorPid } = await new Promise<{ simulatorPid: number }>((resolve, reject) => {
      app.once("message", (message) => resolve(message as { simulatorPid: number }));
      app.once("exit", (code) => reject(new Error(`the app stand-in exited with ${code}`)));
    });
    expect(isRunning(simulatorPid)).toBe(true);
    app.kill("SIGKILL");
    await until("the simulator process to exit", async () => !isRunning(simulatorPid));
  });
});

/** True while the process exists and is not a zombie waiting for its reaper. */
function isRunning(pid: number): boolean {
  const stat = `/proc/${pid}/stat`;
  if (!existsSync(stat)) return false;
  return readFileSync(stat, "utf8").split(") ")[1]!.split(" ")[0] !== "Z";
}
