/**
 * POST /recordings with 100 sequences / 500 calls (every call with a WAV recording on local storage and a
 * ~1.5 kB transcript), with and without transcripts, measured through the real `/api/v1` handler (key check,
 * rate limiter, tRPC, zod input/output validation, URL signing with a file check per recording, JSON) against the
 * raw queries the endpoint needs (the same two reads through postgres.js, rows only). Goal (DESIGN §10): p50 ≤ 50 ms.
 *
 * Run: npx tsx bench/recordings.ts
 *   BENCH_ITERATIONS (default 300), BENCH_CONCURRENCY (default 1; latency is measured one request at a time),
 *   BENCH_APP=1 also measures over HTTP against the built app (`npm start` path; builds first if needed).
 * Starts its own embedded Postgres and recordings directory in a temp dir and removes both when done.
 */
import { mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { createDb } from "@/db";
import { calls, sequences } from "@/db/schema";
import { newId } from "@/server/ids";
import { handleApiV1 } from "@/server/http/api-v1";
import { createAgent } from "@/server/services/agents/create-agent";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { createOrganization } from "@/server/services/organizations/create-organization";
import { localRecordingStore } from "@/server/storage/recording-store";
import { fmt, percentile, request, startBenchDatabase, startNextApp } from "./lib/harness";

const ITERATIONS = Number(process.env.BENCH_ITERATIONS ?? 300);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 1);
const SEQUENCES = 100;
const CALLS_PER_SEQUENCE = 5;

function wav(seconds: number): Uint8Array {
  const samples = 8000 * seconds;
  const buffer = Buffer.alloc(44 + samples * 2);
  buffer.write("RIFF", 0, "ascii");
  buffer.writeUInt32LE(36 + samples * 2, 4);
  buffer.write("WAVEfmt ", 8, "ascii");
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(16000, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write("data", 36, "ascii");
  buffer.writeUInt32LE(samples * 2, 40);
  return new Uint8Array(buffer);
}

const TRANSCRIPT = Array.from({ length: 16 }, (_, i) =>
  i % 2 === 0 ? "Agent: Thanks for taking the call — I wanted to follow up on the demo you requested last week." : "Customer: Sure, go ahead, I have a few minutes right now.",
).join("\n");

async function measure(label: string, fire: () => Promise<void>) {
  for (let i = 0; i < Math.min(20, ITERATIONS); i++) await fire(); // warm-up
  const cpuBefore = process.cpuUsage();
  const latencies: number[] = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next++ < ITERATIONS) {
        const start = performance.now();
        await fire();
        latencies.push(performance.now() - start);
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  latencies.sort((a, b) => a - b);
  const result = { label, p50: percentile(latencies, 50), p99: percentile(latencies, 99), mean: latencies.reduce((a, b) => a + b, 0) / latencies.length };
  // CPU of this process per request: less sensitive than wall time to other load on a shared machine.
  const cpuPerRequest = (cpu.user + cpu.system) / 1000 / latencies.length;
  console.log(
    `  ${label.padEnd(48)} p50 ${fmt(result.p50).padStart(6)} ms   p99 ${fmt(result.p99).padStart(6)} ms   mean ${fmt(result.mean).padStart(6)} ms   node cpu ${fmt(cpuPerRequest).padStart(5)} ms/req`,
  );
  return result;
}

async function main() {
  // As under `npm start`: trpc-to-openapi re-generates the whole OpenAPI document on every request outside production.
  Object.assign(process.env, { NODE_ENV: "production" });
  const dataDir = mkdtempSync(path.join(os.tmpdir(), "ocs-bench-recordings-"));
  process.env.DATA_DIR = dataDir;
  process.env.APP_SECRET ??= "bench-secret-for-recording-urls-0123456789";
  const database = await startBenchDatabase();
  const handle = createDb(database.url, { max: 10 });
  const { db, sql } = handle;
  try {
    const org = await createOrganization(db, { name: "Bench recordings" });
    const agent = await createAgent(db, { organizationId: org.id, name: "Bench agent" });
    // The API allows 10 requests per second per key: rotate over enough keys that the limiter admits everything.
    const keys: string[] = [];
    for (let i = 0; i < 200; i++) keys.push((await createApiKey(db, { organizationId: org.id, name: `bench ${i}` })).key);

    // Noise: other organizations' data in the same tables, so the indexes matter.
    const noiseOrg = await createOrganization(db, { name: "Noise" });
    const noiseAgent = await createAgent(db, { organizationId: noiseOrg.id, name: "Noise agent" });
    for (let chunk = 0; chunk < 20; chunk++) {
      const seqRows = Array.from({ length: 1000 }, () => ({
        id: newId("call-sequence"),
        organizationId: noiseOrg.id,
        agentId: noiseAgent.id,
        name: "Noise",
        phoneNumber: "+12015550100",
        timezone: "UTC",
        scheduledBy: "bench",
        steps: [],
      }));
      await db.insert(sequences).values(seqRows);
      await db.insert(calls).values(
        seqRows.flatMap((s) =>
          Array.from({ length: 3 }, (_, step) => ({
            id: newId("call"),
            organizationId: noiseOrg.id,
            agentId: noiseAgent.id,
            sequenceId: s.id,
            stepNumber: step + 1,
            scheduledAt: new Date(Date.UTC(2026, 0, 1 + step)),
            transcript: TRANSCRIPT,
            recordingKey: `${noiseOrg.id}/x.wav`,
          })),
        ),
      );
    }

    const audio = wav(1);
    const sequenceIds: string[] = [];
    for (let s = 0; s < SEQUENCES; s++) {
      const sequenceId = newId("call-sequence");
      sequenceIds.push(sequenceId);
      await db.insert(sequences).values({
        id: sequenceId,
        organizationId: org.id,
        agentId: agent.id,
        name: `Contact ${s}`,
        phoneNumber: "+12015550123",
        timezone: "America/New_York",
        scheduledBy: "bench",
        lifecycleStatus: "done",
        steps: [],
      });
      const rows = [];
      for (let step = 1; step <= CALLS_PER_SEQUENCE; step++) {
        const id = newId("call");
        const recordingKey = `${org.id}/${id}.wav`;
        await localRecordingStore.put(recordingKey, audio, "audio/wav");
        rows.push({
          id,
          organizationId: org.id,
          agentId: agent.id,
          sequenceId,
          stepNumber: step,
          scheduledAt: new Date(Date.UTC(2026, 1, 1, 9, step)),
          resultType: "Goal Completed" as const,
          duration: 95,
          transcript: TRANSCRIPT,
          recordingKey,
          recordingContentType: "audio/wav",
          recordingDurationSeconds: 1,
          endedAt: new Date(Date.UTC(2026, 1, 1, 9, step, 30)),
        });
      }
      await db.insert(calls).values(rows);
    }
    await sql`analyze`;

    let counter = 0;
    const inProcess = (includeTranscripts: boolean) => async () => {
      const res = await handleApiV1(
        new Request("http://localhost/api/v1/recordings", {
          method: "POST",
          headers: { "content-type": "application/json", "x-api-key": keys[counter++ % keys.length]! },
          body: JSON.stringify({ sequenceIds, includeTranscripts }),
        }),
        { db },
      );
      const body = (await res.json()) as { recordings?: Array<{ calls: Array<{ recordingStatus: string }> }> };
      if (res.status !== 200) throw new Error(`POST /recordings answered ${res.status}: ${JSON.stringify(body)}`);
      const total = body.recordings!.reduce((n, r) => n + r.calls.filter((c) => c.recordingStatus === "downloaded").length, 0);
      if (total !== SEQUENCES * CALLS_PER_SEQUENCE) throw new Error(`expected 500 signed recordings, got ${total}`);
    };
    // The raw reads the endpoint needs: sequence existence and the calls (limit 501), in parallel, rows only.
    const raw = (includeTranscripts: boolean) => async () => {
      const [found, rows] = await Promise.all([
        sql`select id from sequences where organization_id = ${org.id} and id = any(${sequenceIds})`,
        includeTranscripts
          ? sql`select id, sequence_id, step_number, attempt, scheduled_at, duration, recording_key, recording_duration_seconds, recording_deleted_at, transcript
                from calls where organization_id = ${org.id} and sequence_id = any(${sequenceIds}) order by sequence_id, step_number, attempt limit 501`
          : sql`select id, sequence_id, step_number, attempt, scheduled_at, duration, recording_key, recording_duration_seconds, recording_deleted_at
                from calls where organization_id = ${org.id} and sequence_id = any(${sequenceIds}) order by sequence_id, step_number, attempt limit 501`,
      ]);
      if (found.length !== SEQUENCES || rows.length !== SEQUENCES * CALLS_PER_SEQUENCE) throw new Error("raw query returned the wrong rows");
    };

    const load = os.loadavg()[0]!;
    console.log(`POST /recordings — ${SEQUENCES} sequences / ${SEQUENCES * CALLS_PER_SEQUENCE} calls, all with local WAV recordings; ${ITERATIONS} requests, concurrency ${CONCURRENCY}`);
    console.log(`  machine: ${os.cpus().length} cores, load average ${fmt(load, 2)} at start (latency figures are only meaningful on an idle machine)`);
    const rawWithout = await measure("raw queries (no transcripts)", raw(false));
    const rawWith = await measure("raw queries (with transcripts)", raw(true));
    const handlerWithout = await measure("real /api/v1 handler, includeTranscripts false", inProcess(false));
    const handlerWith = await measure("real /api/v1 handler, includeTranscripts true", inProcess(true));
    console.log(
      `  handler/raw p50: ${fmt(handlerWithout.p50 / rawWithout.p50)}× without, ${fmt(handlerWith.p50 / rawWith.p50)}× with transcripts` +
        `   goal p50 ≤ 50 ms: ${handlerWithout.p50 <= 50 && handlerWith.p50 <= 50 ? "met" : "NOT met"}`,
    );

    if (process.env.BENCH_APP === "1") {
      const app = await startNextApp(database.url, dataDir);
      try {
        const overHttp = (includeTranscripts: boolean) => async () => {
          const res = await request(`${app.url}/api/v1/recordings`, { "content-type": "application/json", "x-api-key": keys[counter++ % keys.length]! }, {
            method: "POST",
            body: JSON.stringify({ sequenceIds, includeTranscripts }),
          });
          if (res.status !== 200) throw new Error(`app answered ${res.status}: ${res.body.slice(0, 200)}`);
        };
        // One link from the running app, played through its signed-URL route (whole file, then a seek).
        const sample = await request(`${app.url}/api/v1/recordings`, { "content-type": "application/json", "x-api-key": keys[counter++ % keys.length]! }, {
          method: "POST",
          body: JSON.stringify({ sequenceIds: sequenceIds.slice(0, 1) }),
        });
        const link = (JSON.parse(sample.body) as { recordings: Array<{ calls: Array<{ url: string }> }> }).recordings[0]!.calls[0]!.url;
        const whole = await request(link, {});
        const seek = await request(link, { range: "bytes=44-99" });
        console.log(`  running app audio route: GET → ${whole.status}, Range bytes=44-99 → ${seek.status}`);
        if (whole.status !== 200 || seek.status !== 206) throw new Error("the signed audio route did not serve the recording");
        await measure("running app over HTTP, includeTranscripts false", overHttp(false));
        await measure("running app over HTTP, includeTranscripts true", overHttp(true));
      } finally {
        await app.stop();
      }
    }
  } finally {
    await handle.close();
    await database.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
