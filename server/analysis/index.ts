import { getConfig } from "@/server/config/env";
import { createLlmAnalyzer } from "./llm";
import { ruleBasedAnalyzer } from "./rule-based";
import type { CallAnalyzer } from "./types";

const registry = globalThis as unknown as { __callAnalyzer?: CallAnalyzer };

/**
 * The process's analyser: the LLM analyser when `ANALYSIS_LLM_URL` is set (with `ANALYSIS_LLM_MODEL`, optional
 * `ANALYSIS_LLM_API_KEY`), else the rule-based default.
 */
export function getCallAnalyzer(): CallAnalyzer {
  if (registry.__callAnalyzer) return registry.__callAnalyzer;
  const { ANALYSIS_LLM_URL: url, ANALYSIS_LLM_MODEL: model, ANALYSIS_LLM_API_KEY: apiKey } = getConfig();
  if (!url) return ruleBasedAnalyzer;
  // The configuration refuses ANALYSIS_LLM_URL without ANALYSIS_LLM_MODEL at start.
  if (!model) throw new Error("ANALYSIS_LLM_MODEL must be set when ANALYSIS_LLM_URL is set.");
  registry.__callAnalyzer = createLlmAnalyzer({ url, model, apiKey });
  return registry.__callAnalyzer;
}

/** Replaces the process's analyser (tests). */
export function setCallAnalyzer(analyzer: CallAnalyzer | undefined): void {
  registry.__callAnalyzer = analyzer;
}

export { ruleBasedAnalyzer } from "./rule-based";
export { createLlmAnalyzer, AnalysisError } from "./llm";
export type { AnalysisInput, AnalysisResult, CallAnalyzer, FinalResultType } from "./types";
