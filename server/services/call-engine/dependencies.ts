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
};

export const defaultCallEngineDependencies: CallEngineDependencies = {
  getDb,
  now: () => new Date(),
  voiceEngine: getVoiceEngine,
  analyzer: getCallAnalyzer,
};
