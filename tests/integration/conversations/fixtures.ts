import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { eq } from "drizzle-orm";
import type { Db } from "@/db";
import { calls } from "@/db/schema";
import { createApiKey } from "@/server/services/api-keys/manage-api-keys";
import { localRecordingStore } from "@/server/storage/recording-store";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "../../factories";

/** Recordings of this test file go to a private $DATA_DIR; local signed URLs need a server secret. */
export function useRecordingsSandbox(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocs-recordings-"));
  process.env.DATA_DIR = dir;
  process.env.APP_SECRET = "test-secret-for-recording-urls-0123456789";
  delete process.env.RECORDING_STORAGE;
  return dir;
}

/** A small but real PCM WAV file (mono, 8 kHz, 16-bit) of `samples` samples of a sine tone. */
export function makeWav(samples = 4000): Uint8Array {
  const dataBytes = samples * 2;
  const buffer = Buffer.alloc(44 + dataBytes);
  buffer.write("RIFF", 0, "ascii");
  buffer.writeUInt32LE(36 + dataBytes, 4);
  buffer.write("WAVE", 8, "ascii");
  buffer.write("fmt ", 12, "ascii");
  buffer.writeUInt32LE(16, 16);
  buffer.writeUInt16LE(1, 20);
  buffer.writeUInt16LE(1, 22);
  buffer.writeUInt32LE(8000, 24);
  buffer.writeUInt32LE(16000, 28);
  buffer.writeUInt16LE(2, 32);
  buffer.writeUInt16LE(16, 34);
  buffer.write("data", 36, "ascii");
  buffer.writeUInt32LE(dataBytes, 40);
  for (let i = 0; i < samples; i++) buffer.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / 8000)), 44 + i * 2);
  return new Uint8Array(buffer);
}

export async function createOrgWithAgent(db: Db, name = "Conversations Org") {
  const { organization, apiKey } = await createTestOrganization(db, { name });
  const agent = await createTestAgent(db, organization.id, { name: "Recorder" });
  return { organization, apiKey, agent };
}

export type CallSpec = {
  stepNumber?: number;
  attempt?: number;
  scheduledAt?: Date;
  transcript?: string | null;
  /** Write a WAV file and point the call at it. */
  withAudio?: boolean;
  recordingKey?: string | null;
  duration?: number;
  resultType?: "Goal Completed" | "Goal Not Completed" | "Voicemail" | "Busy" | "Scheduled";
  endedAt?: Date | null;
};

/** A completed sequence with the given calls; audio files are written through the real local store. */
export async function createConversation(
  db: Db,
  owner: { organizationId: string; agentId: string },
  callSpecs: CallSpec[],
  options: { name?: string } = {},
) {
  const sequence = await createTestSequence(db, { ...owner, name: options.name ?? "Ada Lovelace", lifecycleStatus: "done" });
  const created = [];
  for (const [index, spec] of callSpecs.entries()) {
    // Far in the future by default: the recording-retention cron (registered with the app's functions) may fire in
    // other test files' runners with their own clocks, and must never find these recordings old enough to delete.
    const scheduledAt = spec.scheduledAt ?? new Date(Date.UTC(2099, 0, 10, 15, index));
    const call = await createTestCall(db, {
      ...owner,
      sequenceId: sequence.id,
      stepNumber: spec.stepNumber ?? index + 1,
      attempt: spec.attempt ?? 1,
      scheduledAt,
      resultType: spec.resultType ?? "Goal Completed",
      duration: spec.duration ?? 42,
      transcript: spec.transcript === undefined ? "Customer: Hello?\nAgent: Hi, this is Recorder calling." : spec.transcript,
      endedAt: spec.endedAt === undefined ? new Date(scheduledAt.getTime() + 60_000) : spec.endedAt,
    });
    let recordingKey = spec.recordingKey ?? null;
    if (spec.withAudio) {
      recordingKey = `${owner.organizationId}/${call.id}.wav`;
      await localRecordingStore.put(recordingKey, makeWav(), "audio/wav");
    }
    if (recordingKey) {
      await db
        .update(calls)
        .set({ recordingKey, recordingContentType: "audio/wav", recordingDurationSeconds: spec.withAudio ? 1 : null })
        .where(eq(calls.id, call.id));
    }
    created.push({ ...call, recordingKey });
  }
  return { sequence, calls: created };
}

/**
 * API keys for a test that makes many requests in a burst: the real limiter allows 10 per second per key, so a
 * fresh key of the same organization is handed out every 8 requests.
 */
export function rotatingKey(db: Db, organizationId: string) {
  let current: string | null = null;
  let used = 0;
  return async () => {
    if (!current || used >= 8) {
      current = (await createApiKey(db, { organizationId, name: "burst" })).key;
      used = 0;
    }
    used++;
    return current;
  };
}
