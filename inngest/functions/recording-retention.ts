import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import { getConfig } from "@/server/config/env";
import { deleteExpiredRecordings } from "@/server/services/recordings/delete-expired-recordings";
import { deleteExpiredCallContent } from "@/server/services/privacy/delete-expired-call-content";
import { getRecordingStore, type RecordingStore } from "@/server/storage/recording-store";
import { recordingRetentionDays } from "@/server/storage/storage-settings";
import { inngest } from "../client";

export type RecordingRetentionDependencies = {
  getDb: () => Db;
  store: () => RecordingStore;
  /** RECORDING_RETENTION_DAYS; null keeps audio forever. */
  retentionDays: () => number | null;
};

const defaultDependencies: RecordingRetentionDependencies = { getDb, store: () => getRecordingStore(), retentionDays: () => recordingRetentionDays(getConfig().raw) };

/** Calls examined per step (10 batches of 500); a large backlog continues in further steps of the same run. */
const BATCHES_PER_STEP = 10;
const MAX_STEPS = 200;

/**
 * Daily at 03:17 UTC: deletes the audio of calls that ended more than RECORDING_RETENTION_DAYS ago (those calls then
 * report `no-recording` everywhere, their transcripts stay), then applies each organization's own retention period
 * (recordings, transcripts and analysis; server/services/privacy/delete-expired-call-content.ts). The cutoff comes from the cron event's time, so retries of
 * a step use the same one. Each step resumes after the last call the previous one examined.
 */
export function createRecordingRetentionFunction(client: Inngest.Any, deps: RecordingRetentionDependencies = defaultDependencies) {
  return client.createFunction(
    {
      id: "recording-retention",
      name: "Recordings: delete audio past the retention period",
      triggers: [{ cron: "17 3 * * *" }],
      retries: 2,
      concurrency: { limit: 1 },
    },
    async ({ event, step }) => {
      const now = new Date(event.ts ?? Date.now());
      const retentionDays = deps.retentionDays();
      let afterCallId: string | null = null;
      let deleted = 0;
      let failed = 0;
      for (let index = 0; index < MAX_STEPS; index++) {
        const batch = await step.run(`delete-expired-recordings-${index}`, () =>
          deleteExpiredRecordings(deps.getDb(), { now, retentionDays, store: deps.store(), afterCallId, maxBatches: BATCHES_PER_STEP }),
        );
        deleted += batch.deleted;
        failed += batch.failed;
        afterCallId = batch.lastCallId;
        if (batch.done) break;
      }
      // Organizations' own retention (docs/compliance.md "Retention"): recordings, transcripts and analysis.
      let removed = 0;
      let afterContentCallId: string | null = null;
      for (let index = 0; index < MAX_STEPS; index++) {
        const batch = await step.run(`delete-expired-call-content-${index}`, () =>
          deleteExpiredCallContent(deps.getDb(), { now, store: deps.store(), afterCallId: afterContentCallId, maxBatches: BATCHES_PER_STEP }),
        );
        removed += batch.removed;
        failed += batch.failed;
        afterContentCallId = batch.lastCallId;
        if (batch.done) break;
      }
      return { retentionDays, cutoffFrom: now.toISOString(), deleted, removed, failed };
    },
  );
}

export const recordingRetention = createRecordingRetentionFunction(inngest);
