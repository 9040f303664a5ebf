import { getDb, type Db } from "@/db";
import { getCallAnalyzer } from "@/server/analysis";
import type { CallAnalyzer } from "@/server/analysis/types";
import { getVoiceEngine } from "@/server/voice";
import type { VoiceEngine } from "@/server/voice/types";

/** What the call engine's Inngest functions run on; tests inject their database, clock, simulator and analyser. */
export type CallEngineDependencies = {
  getDb: () => Db;
  now: () => Date;
  voiceEngine: () => VoiceEngine;
  analyzer: () => CallAnalyzer;
  /**
   * Organizations the sweeping functions (the dispatcher, the watchdog) look at; undefined (production) means all.
   * Tests sharing one database scope them to their own organizations so they never touch another test's calls.
   */
  watchdogOrganizationIds?: () => string[] | undefined;
  /**
   * Largest event batch of the batched functions (dispatch-calls, analyze-call); tests set 1 so each event starts a
   * run at once instead of after the batch timeout on their simulated clock.
   */
  eventBatchSize?: number;
  /** Waits until a call's dial slot (default: real time); tests on a simulated clock do not wait. */
  waitForSlot?: (at: Date) => Promise<void>;
  /**
   * The dispatcher sweep's period in minutes (default 1: a cron every minute). Tests moving a simulated clock over
   * days use a day, so a simulated day is one sweep run instead of 1,440; what the sweep does is the same.
   */
  sweepPeriodMinutes?: number;
};

export const defaultCallEngineDependencies: CallEngineDependencies = {
  getDb,
  now: () => new Date(),
  voiceEngine: getVoiceEngine,
  analyzer: getCallAnalyzer,
};
