import { settingsOf } from "./setting";
import { httpUrl, text } from "./value-types";

/** Post-call analysis by an LLM (server/analysis); unset, the rule-based analyser. Listed in the docs with the call engine. */
const setting = settingsOf("Call engine");

export const analysisSettings = {
  ANALYSIS_LLM_URL: setting(httpUrl().optional(), {
    description: "An OpenAI-compatible chat-completions endpoint for post-call analysis (with `ANALYSIS_LLM_MODEL`).",
    default: "unset: rule-based analysis",
    sameOnEveryInstance: true,
  }),
  ANALYSIS_LLM_MODEL: setting(text().optional(), { description: "The analysis model.", sameOnEveryInstance: true }),
  ANALYSIS_LLM_API_KEY: setting(text().optional(), { description: "Bearer key of the analysis endpoint.", secret: true, sameOnEveryInstance: true }),
};
