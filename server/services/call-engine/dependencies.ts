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
   * Organizations the watchdog looks at; undefined (production) means all. Tests sharing one database scope their
   * watchdog to their own organizations so it never touches another test's calls.
   */
  watchdogOrganizationIds?: () => string[] | undefined;
};

export const defaultCallEngineDependencies: CallEngineDependencies = {
  getDb,
  now: () => new Date(),
  voiceEngine: getVoiceEngine,
  analyzer: getCallAnalyzer,
};
