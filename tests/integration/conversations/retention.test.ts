import { existsSync } from "node:fs";
import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls } from "@/db/schema";
import { deleteExpiredRecordings } from "@/server/services/recordings/delete-expired-recordings";
import { localRecordingPath, localRecordingStore, type RecordingStore } from "@/server/storage/recording-store";
import { recordingRetentionDays } from "@/server/storage/storage-settings";
import { inngest } from "@/inngest/client";
import { createRecordingRetentionFunction } from "@/inngest/functions/recording-retention";
import { apiClient } from "../../helpers/api";
import { createTestClock, startTestInngest } from "../../helpers/inngest";
import { useTestDb } from "../../helpers/db";
import { createConversation, createOrgWithAgent, useRecordingsSandbox } from "./fixtures";

useRecordingsSandbox();
const db = useTestDb();
const api = apiClient(db);

// Retention sweeps every organization: these calls live in 1999 so that no other test file's calls (running in
// parallel on the same database) are old enough to be touched.
const NOW = new Date("1999-06-01T00:00:00.000Z");
const OLD = new Date("1999-01-01T10:00:00.000Z");
const RECENT = new Date("1999-05-30T10:00:00.000Z");

async function callRow(id: string) {
  const [row] = await db.select().from(calls).where(eq(calls.id, id));
  return row!;
}

describe("recording retention", () => {
  it("deletes audio past the retention period; those calls then report no-recording and keep their transcripts", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { sequence, calls: made } = await createConversation(db, owner, [
      { withAudio: true, scheduledAt: OLD, endedAt: OLD, transcript: "Agent: Old call." },
      { withAudio: true, scheduledAt: RECENT, endedAt: RECENT, transcript: "Agent: Recent call." },
      { recordingKey: "https://provider.example/old.wav", scheduledAt: OLD, endedAt: OLD },
      // Never ended (no endedAt): its scheduled time counts.
      { withAudio: true, scheduledAt: OLD, endedAt: null },
    ]);
    const [old, recent, external, unended] = made as [typeof made[0], typeof made[0], typeof made[0], typeof made[0]];
    const oldFile = localRecordingPath(old.recordingKey!);
    expect(existsSync(oldFile)).toBe(true);

    const result = await deleteExpiredRecordings(db, { now: NOW, retentionDays: 90 });
    expect(result).toMatchObject({ deleted: 3, failed: 0, done: true });

    expect(existsSync(oldFile)).toBe(false);
    expect(existsSync(localRecordingPath(unended.recordingKey!))).toBe(false);
    expect(existsSync(localRecordingPath(recent.recordingKey!))).toBe(true);
    for (const id of [old.id, external.id, unended.id]) {
      const row = await callRow(id);
      expect(row.recordingKey).toBeNull();
      expect(row.recordingDeletedAt).toEqual(NOW);
    }
    expect((await callRow(old.id)).transcript).toBe("Agent: Old call.");
    expect((await callRow(recent.id)).recordingDeletedAt).toBeNull();

    const res = await apiClient(db, { now: () => NOW })("/recordings", {
      method: "POST",
      key: apiKey,
      body: { sequenceIds: [sequence.id], includeTranscripts: true },
    });
    const entries = res.body.recordings[0].calls;
    expect(entries.map((e: { recordingStatus: string }) => e.recordingStatus)).toEqual(["no-recording", "downloaded", "no-recording", "no-recording"]);
    expect(entries[0]).toMatchObject({ callId: old.id, transcript: "Agent: Old call." });
    expect(entries[0]).not.toHaveProperty("url");
    const metadata = await api(`/conversations/metadata/${sequence.id}`, { key: apiKey, query: { includeRecording: "true" } });
    expect(metadata.body.metadata.map((m: { recordingUrl?: string }) => Boolean(m.recordingUrl))).toEqual([false, true, false, false]);
    expect(metadata.body.metadata[0].callResult.transcription).toBe("Agent: Old call.");

    // A second run finds nothing left to do.
    expect(await deleteExpiredRecordings(db, { now: NOW, retentionDays: 90 })).toMatchObject({ deleted: 0, failed: 0 });
  });

  it("keeps everything when retention is off, and pages in batches that can be resumed", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { calls: made } = await createConversation(db, owner, [
      { withAudio: true, scheduledAt: new Date("1998-01-01T00:00:00Z") },
      { withAudio: true, scheduledAt: new Date("1998-01-02T00:00:00Z") },
      { withAudio: true, scheduledAt: new Date("1998-01-03T00:00:00Z") },
    ]);
    const now = new Date("1998-12-01T00:00:00Z");
    expect(await deleteExpiredRecordings(db, { now, retentionDays: null })).toMatchObject({ deleted: 0, done: true });
    for (const call of made) expect((await callRow(call.id)).recordingKey).not.toBeNull();

    const first = await deleteExpiredRecordings(db, { now, retentionDays: 30, batchSize: 1, maxBatches: 1 });
    expect(first).toMatchObject({ deleted: 1, done: false });
    const rest = await deleteExpiredRecordings(db, { now, retentionDays: 30, batchSize: 1, afterCallId: first.lastCallId });
    expect(rest.done).toBe(true);
    for (const call of made) expect((await callRow(call.id)).recordingDeletedAt).toEqual(now);
  });

  it("leaves a call whose audio could not be deleted for the next run, and deletes the others", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const at = new Date("1997-03-01T00:00:00Z");
    const { calls: made } = await createConversation(db, owner, [
      { withAudio: true, scheduledAt: at },
      { withAudio: true, scheduledAt: at },
    ]);
    const failing: RecordingStore = {
      ...localRecordingStore,
      delete: async (key) => {
        if (key === made[0]!.recordingKey) throw new Error("bucket unavailable");
        await localRecordingStore.delete(key);
      },
    };
    const now = new Date("1997-12-01T00:00:00Z");
    const warn = console.warn;
    console.warn = () => {};
    try {
      expect(await deleteExpiredRecordings(db, { now, retentionDays: 30, store: failing })).toMatchObject({ deleted: 1, failed: 1 });
    } finally {
      console.warn = warn;
    }
    expect((await callRow(made[0]!.id)).recordingKey).toBe(made[0]!.recordingKey);
    expect((await callRow(made[1]!.id)).recordingKey).toBeNull();
    expect(await deleteExpiredRecordings(db, { now, retentionDays: 30 })).toMatchObject({ deleted: 1, failed: 0 });
    expect((await callRow(made[0]!.id)).recordingDeletedAt).toEqual(now);
  });

  it("reads RECORDING_RETENTION_DAYS: 90 by default, 0 for forever, whole days only", () => {
    expect(recordingRetentionDays({})).toBe(90);
    expect(recordingRetentionDays({ RECORDING_RETENTION_DAYS: "30" })).toBe(30);
    expect(recordingRetentionDays({ RECORDING_RETENTION_DAYS: "0" })).toBeNull();
    expect(() => recordingRetentionDays({ RECORDING_RETENTION_DAYS: "1.5" })).toThrow();
    expect(() => recordingRetentionDays({ RECORDING_RETENTION_DAYS: "-3" })).toThrow();
  });

  it("runs as a daily cron Inngest function on the embedded runner", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { sequence, calls: made } = await createConversation(db, owner, [
      { withAudio: true, scheduledAt: new Date("1996-01-01T09:00:00Z"), transcript: "Agent: Kept text." },
      { withAudio: true, scheduledAt: new Date("1996-05-20T09:00:00Z") },
    ]);
    const fn = createRecordingRetentionFunction(inngest, { getDb: () => db, store: () => localRecordingStore, retentionDays: () => 90 });
    const runner = await startTestInngest({ db, functions: [fn], clock: createTestClock(new Date("1996-06-01T03:00:00Z")) });
    try {
      await runner.drain();
      expect((await callRow(made[0]!.id)).recordingKey).not.toBeNull();
      expect(await runner.nextWakeAt()).toEqual(new Date("1996-06-01T03:17:00Z"));
      await runner.advance(17 * 60_000);
      expect((await callRow(made[0]!.id)).recordingDeletedAt).toEqual(new Date("1996-06-01T03:17:00Z"));
      expect(existsSync(localRecordingPath(made[0]!.recordingKey!))).toBe(false);
      expect((await callRow(made[1]!.id)).recordingKey).toBe(made[1]!.recordingKey);
      const res = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [sequence.id], includeTranscripts: true } });
      expect(res.body.recordings[0].calls.map((e: { recordingStatus: string }) => e.recordingStatus)).toEqual(["no-recording", "downloaded"]);
      expect(res.body.recordings[0].calls[0].transcript).toBe("Agent: Kept text.");
    } finally {
      await runner.stop();
    }
  });
});
