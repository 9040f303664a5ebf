import { getConfig } from "@/server/config/env";
import { createLlmAnalyzer } from "./llm";
import { ruleBasedAnalyzer } from "./rule-based";
import type { CallAnalyzer } from "./types";
import { processSingleton } from "@/server/runtime/process-singleton";

/** Process-wide (server/runtime/process-singleton.ts): set by tests, or made once from the configuration. */
const registry = () => processSingleton("callAnalyzer", () => ({ analyzer: undefined as CallAnalyzer | undefined }));

/**
 * The process's analyser: the LLM analyser when `ANALYSIS_LLM_URL` is set (with `ANALYSIS_LLM_MODEL`, optional
 * `ANALYSIS_LLM_API_KEY`), else the rule-based default.
 */
export function getCallAnalyzer(): CallAnalyzer {
  const current = registry();
  if (current.analyzer) return current.analyzer;
  const { ANALYSIS_LLM_URL: url, ANALYSIS_LLM_MODEL: model, ANALYSIS_LLM_API_KEY: apiKey } = getConfig();
  if (!url) return ruleBasedAnalyzer;
  // The configuration refuses ANALYSIS_LLM_URL without ANALYSIS_LLM_MODEL at start.
  if (!model) throw new Error("ANALYSIS_LLM_MODEL must be set when ANALYSIS_LLM_URL is set.");
  current.analyzer = createLlmAnalyzer({ url, model, apiKey });
  return current.analyzer;
}

/** Replaces the process's analyser (tests). */
export function setCallAnalyzer(analyzer: CallAnalyzer | undefined): void {
  registry().analyzer = analyzer;
}

export { ruleBasedAnalyzer } from "./rule-based";
export { createLlmAnalyzer, AnalysisError } from "./llm";
export type { AnalysisInput, AnalysisResult, CallAnalyzer, FinalResultType } from "./types";
