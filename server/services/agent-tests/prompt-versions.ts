import { and, desc, eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { getAgentOrThrow } from "@/db/queries/agents";
import { agents, agentTestRuns, promptVersions } from "@/db/schema";
import { AppError } from "@/server/errors";

export type PromptVersionSummary = {
  promptVersionId: string;
  /** 1 for the agent's first saved prompt, counting every version it has had (what the console calls it). */
  number: number;
  createdAt: string;
  current: boolean;
  prompt: string;
  /** The latest completed run on this version: its pass rate (passed / total), null when it has none. */
  passRate: number | null;
  passed: number | null;
  total: number | null;
  lastRunId: string | null;
  lastRunAt: string | null;
  runs: number;
};

const VERSION_LIMIT = 50;

/** An agent's prompt versions, newest first, each with its latest completed test run's pass rate and its run count. */
export async function listPromptVersions(db: DbOrTx, params: { organizationId: string; agentId: string }): Promise<{ currentPromptVersionId: string | null; versions: PromptVersionSummary[] }> {
  const agent = await getAgentOrThrow(db, params);
  const [versions, latestRuns] = await Promise.all([
    // Numbered over all of the agent's versions (the window runs before the limit), oldest first.
    db
      .select({ id: promptVersions.id, prompt: promptVersions.prompt, createdAt: promptVersions.createdAt, number: sql<number>`row_number() over (order by ${promptVersions.createdAt}, ${promptVersions.id})::int` })
      .from(promptVersions)
      .where(eq(promptVersions.agentId, agent.id))
      .orderBy(desc(promptVersions.createdAt), desc(promptVersions.id))
      .limit(VERSION_LIMIT),
    db
      .selectDistinctOn([agentTestRuns.promptVersionId], {
        promptVersionId: agentTestRuns.promptVersionId,
        runId: agentTestRuns.id,
        passed: agentTestRuns.passed,
        total: agentTestRuns.total,
        completedAt: agentTestRuns.completedAt,
        runs: sql<number>`count(*) over (partition by ${agentTestRuns.promptVersionId})::int`,
      })
      .from(agentTestRuns)
      .where(and(eq(agentTestRuns.agentId, agent.id), eq(agentTestRuns.status, "completed")))
      .orderBy(agentTestRuns.promptVersionId, desc(agentTestRuns.completedAt), desc(agentTestRuns.id)),
  ]);
  const byVersion = new Map(latestRuns.map((run) => [run.promptVersionId, run]));
  return {
    currentPromptVersionId: agent.currentPromptVersionId,
    versions: versions.map((version) => {
      const run = byVersion.get(version.id);
      return {
        promptVersionId: version.id,
        number: version.number,
        createdAt: version.createdAt.toISOString(),
        current: version.id === agent.currentPromptVersionId,
        prompt: version.prompt,
        passRate: run && run.total > 0 ? Math.round((run.passed / run.total) * 1000) / 1000 : null,
        passed: run?.passed ?? null,
        total: run?.total ?? null,
        lastRunId: run?.runId ?? null,
        lastRunAt: run?.completedAt?.toISOString() ?? null,
        runs: run?.runs ?? 0,
      };
    }),
  };
}

/**
 * Makes an earlier prompt version the agent's current one (calls placed from now on use it). No new version is
 * made: the old one is current again, with its own test history.
 */
export async function makePromptVersionCurrent(db: DbOrTx, params: { organizationId: string; agentId: string; promptVersionId: string; now: Date }): Promise<{ agentId: string; promptVersionId: string }> {
  const agent = await getAgentOrThrow(db, params);
  const [version] = await db
    .select({ id: promptVersions.id })
    .from(promptVersions)
    .where(and(eq(promptVersions.id, params.promptVersionId), eq(promptVersions.agentId, agent.id)))
    .limit(1);
  if (!version) throw new AppError("PROMPT_VERSION_NOT_FOUND", `Prompt version ${params.promptVersionId} is not a version of agent ${agent.id}.`);
  await db.update(agents).set({ currentPromptVersionId: version.id, updatedAt: params.now }).where(eq(agents.id, agent.id));
  return { agentId: agent.id, promptVersionId: version.id };
}

export type DiffLine = { kind: "same" | "added" | "removed"; text: string };

/** A line diff of two prompts (longest common subsequence): what `to` removed from and added to `from`. */
export function diffLines(from: string, to: string): DiffLine[] {
  const a = from.split("\n");
  const b = to.split("\n");
  const lcs: number[][] = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0));
  for (let i = a.length - 1; i >= 0; i -= 1) {
    for (let j = b.length - 1; j >= 0; j -= 1) lcs[i]![j] = a[i] === b[j] ? lcs[i + 1]![j + 1]! + 1 : Math.max(lcs[i + 1]![j]!, lcs[i]![j + 1]!);
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) {
      out.push({ kind: "same", text: a[i]! });
      i += 1;
      j += 1;
    } else if (lcs[i + 1]![j]! >= lcs[i]![j + 1]!) out.push({ kind: "removed", text: a[i++]! });
    else out.push({ kind: "added", text: b[j++]! });
  }
  while (i < a.length) out.push({ kind: "removed", text: a[i++]! });
  while (j < b.length) out.push({ kind: "added", text: b[j++]! });
  return out;
}

/** The diff between two of an agent's prompt versions (PROMPT_VERSION_NOT_FOUND for a version of another agent). */
export async function diffPromptVersions(db: DbOrTx, params: { organizationId: string; agentId: string; fromPromptVersionId: string; toPromptVersionId: string }): Promise<{ lines: DiffLine[] }> {
  const agent = await getAgentOrThrow(db, params);
  const rows = await db.select().from(promptVersions).where(eq(promptVersions.agentId, agent.id));
  const find = (id: string) => {
    const row = rows.find((candidate) => candidate.id === id);
    if (!row) throw new AppError("PROMPT_VERSION_NOT_FOUND", `Prompt version ${id} is not a version of agent ${agent.id}.`);
    return row.prompt;
  };
  return { lines: diffLines(find(params.fromPromptVersionId), find(params.toPromptVersionId)) };
}
