import { and, eq } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { findCallWithSequenceAndAgent } from "@/db/queries/calls";
import { calls, optOuts, sequences } from "@/db/schema";
import { ruleBasedAnalyzer } from "@/server/analysis/rule-based";
import type { AnalysisInput, AnalysisResult, CallAnalyzer, ExtractionDefinition } from "@/server/analysis/types";
import { callDispositions, type CallDisposition } from "@/server/voice/types";
import { findAnalysisOutcomes, findExtractionDefinitions } from "./call-context";
import { getLogger } from "@/server/observability/logger";
import { findCallRedactor } from "@/server/services/privacy/call-privacy";
import { redactDeep } from "@/server/services/privacy/redaction";

/**
 * Per analysis batch: the agent's extraction definitions and outcomes are read once per agent, not once per call (a
 * batch of up to 100 ended calls usually has one or a few agents; issue 38: "no per-call work repeated"). A batch
 * lives for one step, so a definition changed meanwhile applies from the next batch, as it did for calls analysed
 * during the change.
 */
export class AnalysisContextCache {
  private readonly definitions = new Map<string, ReturnType<typeof findExtractionDefinitions>>();
  private readonly outcomes = new Map<string, ReturnType<typeof findAnalysisOutcomes>>();

  extractionDefinitions(db: DbOrTx, agentId: string): ReturnType<typeof findExtractionDefinitions> {
    let found = this.definitions.get(agentId);
    if (!found) {
      found = findExtractionDefinitions(db, agentId);
      this.definitions.set(agentId, found);
      // A failed read is not kept: the next call of the agent reads again.
      found.catch(() => this.definitions.delete(agentId));
    }
    return found;
  }

  outcomeDefinitions(db: DbOrTx, agentId: string): ReturnType<typeof findAnalysisOutcomes> {
    let found = this.outcomes.get(agentId);
    if (!found) {
      found = findAnalysisOutcomes(db, agentId);
      this.outcomes.set(agentId, found);
      found.catch(() => this.outcomes.delete(agentId));
    }
    return found;
  }
}

/** What the analyser gets for a call that is in `Processing Analysis`; null for any other state. */
export async function buildAnalysisInput(db: DbOrTx, callId: string, cache: AnalysisContextCache = new AnalysisContextCache()): Promise<AnalysisInput | null> {
  const row = await findCallWithSequenceAndAgent(db, { callId, organizationId: null });
  if (!row || row.call.resultType !== "Processing Analysis") return null;
  const disposition = (callDispositions as readonly string[]).includes(row.call.disposition ?? "") ? (row.call.disposition as CallDisposition) : "failed";
  return {
    callId,
    disposition,
    transcript: row.call.transcript,
    durationSeconds: row.call.duration,
    endedAt: row.call.endedAt ?? row.call.updatedAt,
    agent: { name: row.agent.name },
    contact: { name: row.sequence.name, timezone: row.sequence.timezone, variables: row.sequence.customInputVariables },
    extractionDefinitions: await cache.extractionDefinitions(db, row.call.agentId),
    outcomeDefinitions: await cache.outcomeDefinitions(db, row.call.agentId),
    meeting: row.call.followUpMeetingDetails ?? null,
    errorMessage: row.call.providerError,
  };
}

export type AnalyzeEndedCallParams = {
  callId: string;
  analyzer: CallAnalyzer;
  /** Use the rule-based analyser when the configured one fails (the last attempt of a retried step). */
  fallbackToRules?: boolean;
  log?: (message: string, error: unknown) => void;
  /** Shared by the calls of one batch (their agents' definitions read once each). */
  cache?: AnalysisContextCache;
};

/**
 * Runs the analyser over an ended call. Reads only: the result is written by `finalizeCall`, so the (possibly slow,
 * possibly remote) analysis sits outside any transaction and a retry simply analyses again. Null when the call is
 * not (or no longer) waiting for analysis.
 */
export async function analyzeEndedCall(db: DbOrTx, params: AnalyzeEndedCallParams): Promise<AnalysisResult | null> {
  const input = await buildAnalysisInput(db, params.callId, params.cache);
  if (!input) return null;
  let result: AnalysisResult;
  try {
    result = await params.analyzer.analyze(input);
  } catch (error) {
    if (!params.fallbackToRules || params.analyzer === ruleBasedAnalyzer) throw error;
    (params.log ?? ((message, cause) => getLogger("analysis").error({ callId: params.callId, err: cause }, message)))(
      `analysis of ${params.callId} failed; using the rule-based analyser`,
      error,
    );
    result = await ruleBasedAnalyzer.analyze(input);
  }
  // The analyser read a redacted transcript; what it wrote is redacted again (it may echo a number it was told aloud
  // by the agent's prompt or variables) before it is stored, sent by webhook or put in the events feed.
  const redactor = await findCallRedactor(db, params.callId);
  if (redactor) {
    result = {
      ...result,
      summary: redactor.redactText(result.summary),
      extractedVariables: redactDeep(result.extractedVariables, redactor),
      agentActions: redactDeep(result.agentActions, redactor),
      humanActions: redactDeep(result.humanActions, redactor),
      outcomes: redactDeep(result.outcomes, redactor),
    };
  }
  // The contact asked during the call not to be called again (the voice agent's opt_out tool recorded it at once):
  // the result is Opted Out whatever the analyser read, unless the call failed on our side.
  if (input.disposition === "answered" && result.resultType !== "Opted Out" && (await optedOutDuringCall(db, params.callId))) {
    result = { ...result, resultType: "Opted Out" };
  }
  return result;
}

async function optedOutDuringCall(db: DbOrTx, callId: string): Promise<boolean> {
  // Through the opt-out list's primary key (organization, number): the call's own number, recorded by this call.
  const rows = await db
    .select({ callId: optOuts.sourceCallId })
    .from(calls)
    .innerJoin(sequences, eq(sequences.id, calls.sequenceId))
    .innerJoin(optOuts, and(eq(optOuts.organizationId, sequences.organizationId), eq(optOuts.phoneNumber, sequences.phoneNumber)))
    .where(and(eq(calls.id, callId), eq(optOuts.sourceCallId, callId)))
    .limit(1);
  return rows.length > 0;
}

/** The result of a call the engine gives up on (watchdog, or a dial that failed for good). */
export function failedCallAnalysis(definitions: ExtractionDefinition[], summary: string): AnalysisResult {
  return {
    resultType: "Failed",
    summary,
    extractedVariables: Object.fromEntries(definitions.map((definition) => [definition.slug, null])),
    outcomes: [],
    agentActions: [],
    humanActions: [],
  };
}
