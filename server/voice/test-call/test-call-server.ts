import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { WebSocketServer, type WebSocket } from "ws";
import { z } from "zod";
import type { Db } from "@/db";
import type { TestCallToolCall } from "@/db/schema";
import { INTERNAL_ERROR_MESSAGE } from "@/server/errors";
import { parseQuery } from "@/server/http/query-params";
import { isSameOriginUpgrade, refuseUpgrade } from "@/server/http/upgrades";
import { getLogger } from "@/server/observability/logger";
import { idText } from "@/server/schemas/text";
import { getTestModels } from "@/server/services/agent-tests/models";
import { appendTestCallLatency, appendTestCallLine, appendTestCallToolCall, consumeTestCallTicket, finishTestCall, TEST_CALL_SOCKET_PATH } from "@/server/services/agent-tests/test-calls";
import { loadAgentTestContext, testPlaceCallRequest, type AgentTestContext } from "@/server/services/agent-tests/test-context";
import { bookMeetingInTest, newTestToolState, optOutInTest } from "@/server/services/agent-tests/test-tools";
import { TwilioMediaStreamLeg } from "@/server/carriers/twilio/media-stream-leg";
import { startConversation, type ConversationHooks } from "@/server/voice/conversation/conversation";
import { DEFAULT_DEAD_AIR_MS } from "@/server/voice/twilio-realtime/settings";
import { TestCallRecorder } from "./recorder";
import { processSingleton } from "@/server/runtime/process-singleton";

export { TEST_CALL_SOCKET_PATH };

/** The browser must send `start` within this time of the 101. */
const START_TIMEOUT_MS = 10_000;

export const ZTestCallQuerySchema = z.object({ ticket: idText().describe("The single-use ticket `agentTests.startTestCall` returned.") });

/** Messages the page gets beside the media stream (the Twilio Media Streams protocol it speaks otherwise). */
type PageEvent =
  | { event: "test.transcript"; speaker: "agent" | "customer"; text: string; offsetMs: number }
  | { event: "test.tool"; toolCall: TestCallToolCall }
  | { event: "test.latency"; latencyMs: number }
  | { event: "test.hangup"; reason: string };

/**
 * The browser test call's WebSocket (`/ws/agent-test?ticket=…`). The page speaks Twilio Media Streams (start, media as
 * 8 kHz µ-law, mark echoes, stop), so the call runs through the very code a phone call runs: `startConversation` with
 * the SDK's Twilio transport, the agent's instructions, voice and tools. What differs are the hooks: the tools run in
 * test mode, lines and tool calls go to the test call's row and to the page, and the end stores the recording and the
 * analysis. Two locks before anything is read: the Origin must be this app's (403), and the ticket (minted by
 * `agentTests.startTestCall` for a signed-in admin) must be unused and unexpired — it is used up by the upgrade (401).
 * A query that is no ticket at all (missing, a NUL: server/http/query-params.ts) is 400 before the database is asked.
 */
export function createTestCallServer(deps: { getDb: () => Db; now: () => Date }) {
  const wss = new WebSocketServer({ noServer: true, maxPayload: 256 * 1024 });
  const log = getLogger("test-call");

  async function onConnection(ws: WebSocket, testCallId: string, context: AgentTestContext, row: Awaited<ReturnType<typeof consumeTestCallTicket>> & object) {
    const db = deps.getDb();
    const models = await getTestModels();
    const recorder = new TestCallRecorder();
    const tools = newTestToolState();
    const startedAtMs = Date.now();
    const toPage = (event: PageEvent) => {
      if (ws.readyState === ws.OPEN) ws.send(JSON.stringify(event));
    };
    const request = testPlaceCallRequest(context, { testId: testCallId, contact: row.contact, inputVariables: row.inputVariables });
    const toolParams = { db, context, contact: row.contact, inputVariables: row.inputVariables, state: tools, now: deps.now };
    let session: Parameters<NonNullable<ConversationHooks["sessionCreated"]>>[0] | null = null;
    let speechStoppedAt: number | null = null;

    const leg = new TwilioMediaStreamLeg(ws);
    ws.on("message", (data: Buffer) => {
      let message: { event?: string; media?: { payload?: string }; text?: string };
      try {
        message = JSON.parse(data.toString());
      } catch {
        return;
      }
      if (message.event === "media" && message.media?.payload) recorder.callerAudio(message.media.payload);
      // Typed turns (the page's text box): the agent gets them as a user message. Its line is the session's user item,
      // stored and sent to the page by `saveLine` like a spoken turn's: adding one here too showed and kept it twice.
      if (message.event === "test.say" && typeof message.text === "string" && message.text.trim() && session) {
        session.sendMessage(message.text.trim().slice(0, 1000));
      }
    });

    const hooks: ConversationHooks = {
      load: async () => ({ request, callSid: null }),
      // A browser is a person: the agent may speak at once (a phone call waits for answering-machine detection).
      answeredBy: async () => "human",
      streamStarted: async () => {},
      streamEnded: async () => {
        await finishTestCall(db, { testCallId, wav: recorder.wav(), durationSeconds: recorder.seconds(), tools, now: deps.now() }).catch((error: unknown) =>
          log.error({ testCallId, err: error }, "test call could not be finished"),
        );
      },
      saveLine: async (_request, line) => {
        await appendTestCallLine(db, { testCallId, line });
        toPage({ event: "test.transcript", speaker: line.speaker, text: line.text, offsetMs: line.offsetMs });
      },
      bookMeeting: (_request, _callSid, args) => bookMeetingInTest(toolParams, args),
      optOut: async () => optOutInTest(toolParams),
      // A browser test call reaches no contact: no disclosures are played (phone calls: docs/compliance.md).
      prepareDisclosures: async () => [],
      disclosureSpoken: async () => {},
      stopRecording: async () => ({ ok: true, message: "The recording is stopped; the rest of the call is not recorded." }),
      hangUp: async (_callId, params) => {
        toPage({ event: "test.hangup", reason: params.reason });
        setTimeout(() => ws.close(1000, "call ended"), 200);
      },
      sessionCreated: (created) => {
        session = created;
        created.on("transport_event", (event: { type?: string }) => {
          if (event.type === "input_audio_buffer.speech_stopped") speechStoppedAt = Date.now();
        });
        created.on("audio", () => {
          if (speechStoppedAt === null) return;
          const latencyMs = Date.now() - speechStoppedAt;
          speechStoppedAt = null;
          toPage({ event: "test.latency", latencyMs });
          void appendTestCallLatency(db, { testCallId, latencyMs });
        });
        created.on("agent_tool_end", (_context, _agent, tool, result, details) => {
          let args: Record<string, unknown> = {};
          let parsed: TestCallToolCall["result"] = { ok: true, message: String(result) };
          try {
            args = JSON.parse((details.toolCall as { arguments?: string }).arguments ?? "{}");
          } catch {
            args = {};
          }
          try {
            const value = JSON.parse(String(result)) as TestCallToolCall["result"];
            if (typeof value?.ok === "boolean") parsed = value;
          } catch {
            parsed = { ok: true, message: String(result) };
          }
          const toolCall: TestCallToolCall = { name: tool.name, arguments: args, result: parsed, offsetMs: Date.now() - startedAtMs };
          toPage({ event: "test.tool", toolCall });
          void appendTestCallToolCall(db, { testCallId, toolCall });
        });
      },
    };

    // As a phone call is hung up by the provider at the agent's longest call, so is a test call.
    const longest = setTimeout(() => {
      toPage({ event: "test.hangup", reason: "max-call-seconds" });
      ws.close(1000, "longest call reached");
    }, context.agent.maxCallSeconds * 1000);
    ws.on("close", () => clearTimeout(longest));
    const timeout = setTimeout(() => ws.close(1008, "no start"), START_TIMEOUT_MS);
    leg.on("start", () => {
      clearTimeout(timeout);
      startConversation({
        leg,
        callId: testCallId,
        settings: { openai: models.realtime, quality: { deadAirMs: DEFAULT_DEAD_AIR_MS } },
        hooks,
        now: deps.now,
        log: (text, error) => log.warn({ testCallId, err: error }, text),
        // The agent's audio as it leaves for the page (the caller's is taken as it arrives): the recording.
        observeSends: (sent) => {
          if (sent.kind === "audio") recorder.agentAudio(Buffer.from(sent.audio.buffer, sent.audio.byteOffset, sent.audio.byteLength).toString("base64"));
        },
      });
    });
    ws.on("close", () => clearTimeout(timeout));
  }

  return {
    path: TEST_CALL_SOCKET_PATH,
    handleUpgrade(request: IncomingMessage, socket: Duplex, head: Buffer) {
      if (!isSameOriginUpgrade(request)) return refuseUpgrade(socket, { error: "FORBIDDEN", message: "A test call opens only from the console's own pages (Origin)." });
      const parsed = parseQuery(ZTestCallQuerySchema, request.url ?? "/");
      if (!parsed.ok) return refuseUpgrade(socket, parsed.refusal.body);
      const { ticket } = parsed.query;
      void (async () => {
        const db = deps.getDb();
        const row = await consumeTestCallTicket(db, { ticket, now: deps.now() });
        if (!row) return refuseUpgrade(socket, { error: "UNAUTHORIZED", message: "This test call ticket is unknown, used or expired: start the test call again." });
        const context = await loadAgentTestContext(db, { organizationId: row.organizationId, agentId: row.agentId, promptVersionId: row.promptVersionId });
        wss.handleUpgrade(request, socket, head, (ws) => void onConnection(ws, row.id, context, row).catch((error: unknown) => {
          log.error({ testCallId: row.id, err: error }, "test call failed to start");
          ws.close(1011, "test call failed");
        }));
      })().catch((error: unknown) => {
        log.error({ err: error }, "test call upgrade failed");
        refuseUpgrade(socket, { error: "INTERNAL_SERVER_ERROR", message: INTERNAL_ERROR_MESSAGE });
      });
    },
    async close() {
      for (const client of wss.clients) client.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

export type TestCallServer = ReturnType<typeof createTestCallServer>;

/** This process's test-call socket server (one per process, like the voice engine: server/runtime/process-singleton.ts). */
export function getTestCallServer(deps: { getDb: () => Db; now: () => Date }): TestCallServer {
  return processSingleton("testCallServer", () => createTestCallServer(deps));
}
