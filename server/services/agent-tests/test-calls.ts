import { createHash, randomBytes } from "node:crypto";
import { and, desc, eq, gt, sql } from "drizzle-orm";
import type { Db, DbOrTx } from "@/db";
import { assertAgentInOrganization, getAgentOrThrow } from "@/db/queries/agents";
import { agentTestCalls, type TestCallLine, type TestCallToolCall, type TestContact } from "@/db/schema";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import { getRecordingStore } from "@/server/storage/recording-store";
import { MAX_CALL_SECONDS } from "@/server/voice/agent-voice-settings";
import { loadAgentTestContext } from "./test-context";
import { analyzeTestConversation } from "./test-result";
import { testContactOf } from "./test-context";
import type { TestToolState } from "./test-tools";

/** A ticket opens the test call's WebSocket once, within this time. */
export const TEST_CALL_TICKET_TTL_MS = 60_000;
/** The browser's WebSocket path (server/http/node-server.ts registers it). */
export const TEST_CALL_SOCKET_PATH = "/ws/agent-test";

type TestCallRow = typeof agentTestCalls.$inferSelect;

/** A live test call older than the longest call an agent may have (plus a margin) is shown as failed. */
const ABANDONED_AFTER_MS = (MAX_CALL_SECONDS.max + 600) * 1000;

const hashTicket = (ticket: string) => createHash("sha256").update(ticket).digest("hex");

/**
 * A browser test call of the agent's current prompt version with the admin's test contact and input variables: the
 * row (pending) and a single-use ticket for the WebSocket, valid for TEST_CALL_TICKET_TTL_MS. Only the ticket's
 * hash is stored; the ticket is returned once.
 */
export async function startTestCall(
  db: DbOrTx,
  params: { organizationId: string; agentId: string; actorUserId: string | null; contact?: Partial<TestContact>; inputVariables: Record<string, string>; now: Date },
): Promise<{ testCallId: string; ticket: string; path: string; expiresAt: string; promptVersionId: string }> {
  const context = await loadAgentTestContext(db, params);
  const ticket = randomBytes(24).toString("base64url");
  const expiresAt = new Date(params.now.getTime() + TEST_CALL_TICKET_TTL_MS);
  const testCallId = newId("test-call");
  await db.insert(agentTestCalls).values({
    id: testCallId,
    organizationId: params.organizationId,
    agentId: context.agent.id,
    promptVersionId: context.promptVersionId,
    createdByUserId: params.actorUserId,
    contact: testContactOf(context.agent, params.contact),
    inputVariables: params.inputVariables,
    ticketHash: hashTicket(ticket),
    ticketExpiresAt: expiresAt,
    createdAt: params.now,
  });
  return { testCallId, ticket, path: TEST_CALL_SOCKET_PATH, expiresAt: expiresAt.toISOString(), promptVersionId: context.promptVersionId };
}

/** Uses a ticket: the pending, unexpired test call it opens (now `live`), or null. A ticket works once. */
export async function consumeTestCallTicket(db: DbOrTx, params: { ticket: string; now: Date }): Promise<TestCallRow | null> {
  if (!params.ticket) return null;
  const [row] = await db
    .update(agentTestCalls)
    .set({ ticketHash: null, status: "live", startedAt: params.now })
    .where(and(eq(agentTestCalls.ticketHash, hashTicket(params.ticket)), eq(agentTestCalls.status, "pending"), gt(agentTestCalls.ticketExpiresAt, params.now)))
    .returning();
  return row ?? null;
}

export async function appendTestCallLine(db: DbOrTx, params: { testCallId: string; line: TestCallLine }): Promise<void> {
  await db
    .update(agentTestCalls)
    .set({ lines: sql`${agentTestCalls.lines} || ${JSON.stringify([params.line])}::jsonb` })
    .where(eq(agentTestCalls.id, params.testCallId));
}

export async function appendTestCallToolCall(db: DbOrTx, params: { testCallId: string; toolCall: TestCallToolCall }): Promise<void> {
  await db
    .update(agentTestCalls)
    .set({ toolCalls: sql`${agentTestCalls.toolCalls} || ${JSON.stringify([params.toolCall])}::jsonb` })
    .where(eq(agentTestCalls.id, params.testCallId));
}

export async function appendTestCallLatency(db: DbOrTx, params: { testCallId: string; latencyMs: number }): Promise<void> {
  await db
    .update(agentTestCalls)
    .set({ latenciesMs: sql`${agentTestCalls.latenciesMs} || ${JSON.stringify([params.latencyMs])}::jsonb` })
    .where(eq(agentTestCalls.id, params.testCallId));
}

/**
 * The end of a test call: the recording stored (dual-channel WAV: caller left, agent right), the transcript through
 * the post-call analyser and the payload builder (what the webhook would carry), the call `completed`. Nothing
 * else: no charge, no webhook, no suppression, no call record.
 */
export async function finishTestCall(db: Db, params: { testCallId: string; wav: Uint8Array | null; durationSeconds: number; tools: TestToolState; now: Date }): Promise<void> {
  const [row] = await db.select().from(agentTestCalls).where(eq(agentTestCalls.id, params.testCallId)).limit(1);
  if (!row || row.status !== "live") return;
  await db.update(agentTestCalls).set({ status: "analyzing", endedAt: params.now, durationSeconds: params.durationSeconds }).where(eq(agentTestCalls.id, row.id));
  try {
    let recordingKey: string | null = null;
    if (params.wav && params.wav.byteLength > 44) {
      recordingKey = `${row.organizationId}/test-calls/${row.id}.wav`;
      await getRecordingStore().put(recordingKey, params.wav, "audio/wav");
    }
    const context = await loadAgentTestContext(db, { organizationId: row.organizationId, agentId: row.agentId, promptVersionId: row.promptVersionId });
    const { payload } = await analyzeTestConversation({
      context,
      testId: row.id,
      contact: row.contact,
      inputVariables: row.inputVariables,
      lines: row.lines.map((line) => ({ speaker: line.speaker, text: line.text })),
      durationSeconds: params.durationSeconds,
      startedAt: row.startedAt ?? row.createdAt,
      endedAt: params.now,
      tools: params.tools,
    });
    await db.update(agentTestCalls).set({ status: "completed", recordingKey, payload: payload as Record<string, unknown> }).where(eq(agentTestCalls.id, row.id));
  } catch (error) {
    await db
      .update(agentTestCalls)
      .set({ status: "failed", error: error instanceof Error ? error.message.slice(0, 500) : String(error) })
      .where(eq(agentTestCalls.id, row.id));
    throw error;
  }
}

export type TestCallView = {
  testCallId: string;
  agentId: string;
  promptVersionId: string;
  status: TestCallRow["status"];
  contact: TestContact;
  inputVariables: Record<string, string>;
  lines: TestCallLine[];
  toolCalls: TestCallToolCall[];
  latenciesMs: number[];
  durationSeconds: number | null;
  recordingUrl: string | null;
  callResult: Record<string, unknown> | null;
  createdAt: string;
  endedAt: string | null;
  error: string | null;
};

async function toView(row: TestCallRow, now: Date): Promise<TestCallView> {
  const signed = row.recordingKey ? (await getRecordingStore().signUrls([row.recordingKey], now)).get(row.recordingKey) : undefined;
  const pendingExpired = row.status === "pending" && row.ticketExpiresAt !== null && row.ticketExpiresAt <= now;
  // Longer than any call may last: the process that held it went away (a restart) before it could finish.
  const interrupted = (row.status === "live" || row.status === "analyzing") && row.startedAt !== null && now.getTime() - row.startedAt.getTime() > ABANDONED_AFTER_MS;
  return {
    testCallId: row.id,
    agentId: row.agentId,
    promptVersionId: row.promptVersionId,
    status: pendingExpired ? "expired" : interrupted ? "failed" : row.status,
    contact: row.contact,
    inputVariables: row.inputVariables,
    lines: row.lines,
    toolCalls: row.toolCalls,
    latenciesMs: row.latenciesMs,
    durationSeconds: row.durationSeconds,
    recordingUrl: signed?.url ?? null,
    callResult: (row.payload?.callResult as Record<string, unknown> | undefined) ?? null,
    createdAt: row.createdAt.toISOString(),
    endedAt: row.endedAt?.toISOString() ?? null,
    error: interrupted ? "The test call was interrupted before it could be finished (the server restarted)." : row.error,
  };
}

/** The agent's test calls that were connected, newest first (50). */
export async function listTestCalls(db: DbOrTx, params: { organizationId: string; agentId: string; now: Date }): Promise<TestCallView[]> {
  await getAgentOrThrow(db, params);
  const rows = await db
    .select()
    .from(agentTestCalls)
    .where(and(eq(agentTestCalls.agentId, params.agentId), eq(agentTestCalls.organizationId, params.organizationId), sql`${agentTestCalls.startedAt} is not null`))
    .orderBy(desc(agentTestCalls.createdAt), desc(agentTestCalls.id))
    .limit(50);
  return Promise.all(rows.map((row) => toView(row, params.now)));
}

export async function getTestCall(db: DbOrTx, params: { organizationId: string; agentId: string; testCallId: string; now: Date }): Promise<TestCallView> {
  await assertAgentInOrganization(db, params);
  const [row] = await db
    .select()
    .from(agentTestCalls)
    .where(and(eq(agentTestCalls.id, params.testCallId), eq(agentTestCalls.agentId, params.agentId), eq(agentTestCalls.organizationId, params.organizationId)))
    .limit(1);
  if (!row) throw new AppError("NOT_FOUND", `Test call ${params.testCallId} was not found on agent ${params.agentId}.`);
  return toView(row, params.now);
}
