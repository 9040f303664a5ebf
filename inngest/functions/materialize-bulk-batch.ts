import type { Inngest } from "inngest";
import { getDb, type Db } from "@/db";
import {
  bulkStartedEventId,
  DEFAULT_CHUNK_SIZE,
  findStalledBulkBatches,
  materializeBulkBatchChunks,
} from "@/server/services/enrollment/materialize-bulk-batch";
import { inngest } from "../client";
import { sequenceBulkAccepted, sequenceStarted } from "../events";

/**
 * What the enrollment functions run on; tests inject their database, clock and sizes. `chunkSize` contacts make one
 * write (one statement, or one transaction with chained contacts); `chunksPerStep` chunks make one Inngest step (each
 * step costs a round trip through the runner). By default a whole request (≤ 1,000 contacts) is one chunk, one step.
 */
export type EnrollmentFunctionDependencies = { getDb: () => Db; now: () => Date; chunkSize: number; chunksPerStep?: number };

export const DEFAULT_CHUNKS_PER_STEP = 2;

export const defaultEnrollmentDependencies: EnrollmentFunctionDependencies = {
  getDb,
  now: () => new Date(),
  chunkSize: DEFAULT_CHUNK_SIZE,
  chunksPerStep: DEFAULT_CHUNKS_PER_STEP,
};

/** A batch still missing sequences this long after its 202 is considered stalled (lost event, killed run). */
export const STALLED_AFTER_MS = 2 * 60 * 1000;
/** Batches older than this are not resumed automatically any more. */
export const RESUME_HORIZON_MS = 24 * 3600 * 1000;

/**
 * Behind the bulk 202: creates the accepted contacts' sequences chunk by chunk (steps of `chunksPerStep` chunks,
 * each chunk atomic: its sequences, first calls and the batch's progress), then sends `sequence/started` for the
 * scheduled ones. A chunk step that crashes is
 * retried, and a run started again for the same batch (resume sweep) skips what exists: sequences are keyed on
 * (batchId, contact index), so nothing is created twice; their `sequence/started` carries a stable event id, so a
 * resumed run announces what a killed run created but never announced, and nothing twice. One run per batch at a time.
 */
export function createMaterializeBulkBatchFunction(client: Inngest.Any, deps: EnrollmentFunctionDependencies = defaultEnrollmentDependencies) {
  return client.createFunction(
    {
      id: "materialize-bulk-batch",
      name: "Bulk enrollment: create the accepted contacts' sequences",
      triggers: [sequenceBulkAccepted],
      concurrency: [{ key: "event.data.batchId", limit: 1 }],
      retries: 5,
    },
    async ({ event, step }) => {
      const { batchId } = event.data;
      const perStep = Math.max(1, deps.chunksPerStep ?? DEFAULT_CHUNKS_PER_STEP);
      let created = 0;
      const toStart: string[][] = [];
      // Every sequence first, the announcements after: no chunk waits behind the previous chunk's events.
      // The first chunk reports how many chunks the batch has.
      for (let stepIndex = 0, chunks = 1; stepIndex * perStep < chunks; stepIndex += 1) {
        const result = await step.run(`create-chunks-${stepIndex}`, () =>
          materializeBulkBatchChunks(deps.getDb(), {
            batchId,
            firstChunk: stepIndex * perStep,
            maxChunks: perStep,
            chunkSize: deps.chunkSize,
            now: deps.now(),
          }),
        );
        chunks = result.chunks;
        created += result.created;
        toStart.push(result.startedSequenceIds);
      }
      for (const [stepIndex, sequenceIds] of toStart.entries()) {
        if (sequenceIds.length === 0) continue;
        await step.sendEvent(
          `start-sequences-${stepIndex}`,
          sequenceIds.map((sequenceId) => sequenceStarted.create({ sequenceId }, { id: bulkStartedEventId(sequenceId) })),
        );
      }
      return { batchId, created, completed: true };
    },
  );
}

/**
 * Every minute: batches accepted more than two minutes ago that still miss sequences get their
 * `sequence/bulk.accepted` again (the event was lost after commit, or the run was killed). The materialization
 * resumes where it stopped.
 */
export function createResumeBulkBatchesFunction(client: Inngest.Any, deps: EnrollmentFunctionDependencies = defaultEnrollmentDependencies) {
  return client.createFunction(
    { id: "resume-bulk-batches", name: "Bulk enrollment: resume stalled batches", triggers: [{ cron: "* * * * *" }], retries: 1 },
    async ({ step }) => {
      const stalled = await step.run("find-stalled-batches", () => {
        const now = deps.now().getTime();
        return findStalledBulkBatches(deps.getDb(), {
          olderThan: new Date(now - STALLED_AFTER_MS),
          newerThan: new Date(now - RESUME_HORIZON_MS),
        });
      });
      if (stalled.length > 0) {
        await step.sendEvent("resume-batches", stalled.map((batchId) => sequenceBulkAccepted.create({ batchId })));
      }
      return { resumed: stalled };
    },
  );
}

export const materializeBulkBatch = createMaterializeBulkBatchFunction(inngest);
export const resumeBulkBatches = createResumeBulkBatchesFunction(inngest);
