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
  const url = process.env.ANALYSIS_LLM_URL?.trim();
  if (!url) return ruleBasedAnalyzer;
  const model = process.env.ANALYSIS_LLM_MODEL?.trim();
  if (!model) throw new Error("ANALYSIS_LLM_MODEL must be set when ANALYSIS_LLM_URL is set.");
  registry.__callAnalyzer = createLlmAnalyzer({ url, model, apiKey: process.env.ANALYSIS_LLM_API_KEY?.trim() || undefined });
  return registry.__callAnalyzer;
}

/** Replaces the process's analyser (tests). */
export function setCallAnalyzer(analyzer: CallAnalyzer | undefined): void {
  registry.__callAnalyzer = analyzer;
}

export { ruleBasedAnalyzer } from "./rule-based";
export { createLlmAnalyzer, AnalysisError } from "./llm";
export type { AnalysisInput, AnalysisResult, CallAnalyzer, FinalResultType } from "./types";
