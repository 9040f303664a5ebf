import { and, eq, inArray } from "drizzle-orm";
import type { Db } from "@/db";
import { calls } from "@/db/schema";
import type { CallAnalyzer } from "@/server/analysis/types";
import { AnalysisContextCache, analyzeEndedCall } from "./analyze-call";
import { finalizeCall } from "./finalize-call";
import { downloadPendingRecordings } from "./voice-events";

export type ProcessEndedCallsParams = {
  callIds: string[];
  analyzer: CallAnalyzer;
  now: Date;
  /** Use the rule-based analyser when the configured one fails (the last attempt). */
  fallbackToRules?: boolean;
  /** Calls analysed at once (default 8; the LLM analyser is a remote call). */
  concurrency?: number;
};

/**
 * Analyses and finalizes a batch of ended calls: records when their analysis started (the watchdog times analysis out
 * from there), then per call analyse (read-only) → `finalizeCall` (result, charge, opt-out, lifecycle, next call: one
 * transaction, once per call). Calls no longer waiting for analysis are skipped, so a retried batch redoes only what
 * is missing. If any call's analysis failed, the others are finalized first and the first error is thrown (the step
 * is retried). Returns the sequences that got a next call, with its due time.
 */
export async function analyzeAndFinalizeCalls(db: Db, params: ProcessEndedCallsParams): Promise<{ nextCalls: Array<{ sequenceId: string; scheduledAt: string }> }> {
  const { callIds, now } = params;
  if (callIds.length === 0) return { nextCalls: [] };
  await db
    .update(calls)
    .set({ analysisStartedAt: now })
    .where(and(inArray(calls.id, callIds), eq(calls.resultType, "Processing Analysis")));
  // Recordings the provider hosts (a URL in `call.ended`) are downloaded, and silenced where redacted, before the
  // analysis reads the calls: the event request never waits on a recording host (issue 38).
  await downloadPendingRecordings(db, { callIds });
  const nextCalls: Array<{ sequenceId: string; scheduledAt: string }> = [];
  const errors: unknown[] = [];
  const cache = new AnalysisContextCache();
  let index = 0;
  await Promise.all(
    Array.from({ length: Math.min(params.concurrency ?? 8, callIds.length) }, async () => {
      while (index < callIds.length) {
        const callId = callIds[index++]!;
        try {
          const analysis = await analyzeEndedCall(db, { callId, analyzer: params.analyzer, fallbackToRules: params.fallbackToRules, cache });
          if (!analysis) continue;
          const outcome = await finalizeCall(db, { callId, analysis, now });
          // A next EMAIL/SMS step wakes the sequence the same way (`sequence/started` reaches the message scheduler too).
          const next = outcome.finalized ? (outcome.nextCall ?? outcome.nextMessage) : null;
          if (outcome.finalized && next) nextCalls.push({ sequenceId: outcome.sequenceId, scheduledAt: next.scheduledAt });
        } catch (error) {
          errors.push(error);
        }
      }
    }),
  );
  if (errors.length > 0) throw errors[0];
  return { nextCalls };
}
