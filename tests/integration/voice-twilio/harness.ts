import http, { type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import type { Db } from "@/db";
import { inngest } from "@/inngest/client";
import { callAnalyzed, callEnded } from "@/inngest/events";
import { createAnalyzeCallFunction } from "@/inngest/functions/analyze-call";
import { createCallWatchdogFunction } from "@/inngest/functions/call-watchdog";
import { createDeliverWebhookFunction } from "@/inngest/functions/deliver-webhook";
import { createEnqueueWebhookDeliveriesFunction } from "@/inngest/functions/enqueue-webhook-deliveries";
import { createDispatchCallsFunction } from "@/inngest/functions/dispatch-calls";
import { createLlmAnalyzer } from "@/server/analysis/llm";
import type { CallEngineDependencies } from "@/server/services/call-engine/dependencies";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { startOpenAiSimulator, type OpenAiSimulator } from "@/server/simulators/openai-realtime";
import { startTwilioSimulator, type TwilioSimulator } from "@/server/simulators/twilio";
import { createTwilioRealtimeEngine, type TwilioRealtimeEngine } from "@/server/voice/twilio-realtime/engine";
import { TWILIO_VOICE_WEBHOOK_PREFIX } from "@/server/voice/twilio-realtime/inbound";
import { readTwilioRealtimeSettings } from "@/server/voice/twilio-realtime/settings";
import { startTestInngest, type TestInngest } from "@/tests/helpers/inngest";

/** The public origin the app tells Twilio about; the Twilio simulator reaches it through a "tunnel" to loopback. */
export const PUBLIC_BASE_URL = "https://voice.example.test";

export type VoiceStack = {
  twilio: TwilioSimulator;
  openai: OpenAiSimulator;
  engine: TwilioRealtimeEngine;
  runner: TestInngest;
  /** The app's loopback origin (what the tunnel points at). */
  appOrigin: string;
  analyzedCallIds: string[];
  /** The paths Twilio opened the media WebSocket at (the `wss://` URL of the TwiML's `<Stream>`), in order. */
  mediaPaths: string[];
  /** Organizations the dispatcher and the watchdog may touch (the test database is shared by parallel files). */
  watchdogScope: string[];
  /** Posts a request to the app's Twilio callback endpoint as the tunnel would deliver it. */
  postCallback(url: string, params: Record<string, string>, signature: string | null): Promise<Response>;
  /** Runs the Inngest runner (real clock) until the condition holds. */
  runUntil(condition: () => boolean | Promise<boolean>, options?: { timeoutMs?: number; label?: string }): Promise<void>;
  stop(): Promise<void>;
};

async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/**
 * The real voice engine end to end on this machine: the Twilio and OpenAI simulators, the app's Twilio callbacks and
 * media WebSocket on a loopback HTTP server (as node-server.ts serves them), the engine's real Inngest functions
 * (sequence runner, analysis with the LLM analyser against the chat-completions simulator, watchdog, webhook
 * delivery) on an embedded runner with the real clock.
 */
export async function startVoiceStack(db: Db, options: { speed?: number; watchdog?: boolean } = {}): Promise<VoiceStack> {
  const openai = await startOpenAiSimulator();
  let appOrigin = "";
  const tunnel = (url: string) => url.replace(/^https:\/\/voice\.example\.test/, appOrigin).replace(/^wss:\/\/voice\.example\.test/, appOrigin.replace(/^http/, "ws"));
  const twilio = await startTwilioSimulator({ speed: options.speed ?? 4, resolvePublicUrl: tunnel, log: () => {} });
  const settings = readTwilioRealtimeSettings({
    TWILIO_ACCOUNT_SID: twilio.accountSid,
    TWILIO_AUTH_TOKEN: twilio.authToken,
    TWILIO_API_BASE_URL: twilio.origin,
    PUBLIC_BASE_URL,
    OPENAI_API_KEY: openai.apiKey,
    OPENAI_BASE_URL: openai.baseUrl,
    ANALYSIS_LLM_URL: openai.baseUrl,
    ANALYSIS_LLM_MODEL: "gpt-4.1-mini",
  });
  const engine = createTwilioRealtimeEngine({
    settings,
    getDb: () => db,
    announceCallEnded: async (callId) => void (await inngest.send(callEnded.create({ callId }, { id: `call-ended:${callId}` }))),
    recordingWaitMs: 5_000,
    streamWaitMs: 3_000,
    log: (message, error) => process.env.VOICE_DEBUG && console.error("ENGINE", message, error),
  });
  const sockets = new Set<Socket>();
  const server = http.createServer((req: IncomingMessage, res: ServerResponse) => {
    void (async () => {
      const body = await readBody(req);
      const request = new Request(`${appOrigin}${req.url}`, { method: req.method, headers: req.headers as Record<string, string>, body: req.method === "POST" ? new Uint8Array(body) : undefined });
      // The numbers' inbound voice webhooks (app/api/carriers/twilio/voice/…, alias app/api/twilio/voice/[hook]) beside
      // the per-call callbacks.
      const inbound = req.url?.startsWith(`${TWILIO_VOICE_WEBHOOK_PREFIX}/`) || req.url?.startsWith("/api/twilio/voice/");
      const response = inbound ? await engine.handleInboundWebhook(request) : await engine.handleCallback(request);
      res.writeHead(response.status, Object.fromEntries(response.headers)).end(Buffer.from(await response.arrayBuffer()));
    })().catch(() => res.writeHead(500).end());
  });
  const mediaPaths: string[] = [];
  server.on("upgrade", (req, socket, head) => {
    mediaPaths.push((req.url ?? "").split("?")[0]!);
    if (!engine.handleUpgrade(req, socket, head)) socket.destroy();
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  appOrigin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const analyzer = createLlmAnalyzer({ url: openai.baseUrl, model: "gpt-4.1-mini", apiKey: openai.apiKey });
  const clock = { now: () => new Date(), set: () => {}, advance: () => {} };
  const watchdogScope: string[] = [];
  const deps: CallEngineDependencies = { getDb: () => db, now: clock.now, voiceEngine: () => engine, analyzer: () => analyzer, watchdogOrganizationIds: () => watchdogScope };
  const analyzedCallIds: string[] = [];
  const capture = inngest.createFunction({ id: "test-voice-capture-analyzed", triggers: [callAnalyzed], retries: 0 }, async ({ event }) => {
    analyzedCallIds.push(String(event.data.callId));
  });
  const webhookDeps = { getDb: () => db, now: clock.now, addressPolicy: () => LOOPBACK_ADDRESS_POLICY };
  const runner = await startTestInngest({
    db,
    clock,
    functions: [
      createDispatchCallsFunction(inngest, deps),
      createAnalyzeCallFunction(inngest, deps),
      ...(options.watchdog ? [createCallWatchdogFunction(inngest, deps)] : []),
      createEnqueueWebhookDeliveriesFunction(inngest, webhookDeps),
      createDeliverWebhookFunction(inngest, webhookDeps),
      capture,
    ],
  });

  return {
    twilio,
    openai,
    engine,
    runner,
    appOrigin,
    analyzedCallIds,
    mediaPaths,
    watchdogScope,
    postCallback: (url, params, signature) =>
      fetch(tunnel(url), {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded", ...(signature ? { "x-twilio-signature": signature } : {}) },
        body: new URLSearchParams(params).toString(),
      }),
    async runUntil(condition, { timeoutMs = 60_000, label = "condition" } = {}) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        await runner.drain();
        if (await condition()) return;
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${label}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      await runner.stop();
      await engine.close();
      await twilio.stop();
      await openai.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
