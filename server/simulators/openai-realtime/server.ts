import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { WebSocketServer } from "ws";
import { answerAnalysisRequest, ChatRequestError, type ChatCompletionRequest } from "./chat-completions";
import { answerConversationRequest, conversationRequestKind, type ConversationRequest } from "./conversation-models";
import { RealtimeSimSession, type RealtimeSessionRecord } from "./session";
import { speechPcm24k, type SpeechRequest } from "./speech";

export type StartOpenAiSimulatorOptions = {
  port?: number;
  host?: string;
  apiKey?: string;
  /** The listening socket does not keep the process alive (the app's embedded simulator). */
  unref?: boolean;
  /** The model's think time before each Realtime response starts (ms of wall time; default 0). */
  responseDelayMs?: number;
};

export type OpenAiSimulator = {
  /** `http://127.0.0.1:PORT/v1`: the `openai` package's baseURL and OPENAI_BASE_URL. */
  baseUrl: string;
  /** `ws://127.0.0.1:PORT/v1/realtime`. */
  realtimeUrl: string;
  apiKey: string;
  sessions: RealtimeSessionRecord[];
  chatRequests: ChatCompletionRequest[];
  /** `POST /v1/audio/speech` requests (the disclosures' text to speech). */
  speechRequests: SpeechRequest[];
  /** While down, new Realtime connections are refused (503) and chat completions answer 503. */
  setDown(down: boolean): void;
  /** Changes the model's think time before each response (ms of wall time), for every session from now on. */
  setResponseDelay(ms: number): void;
  /** An outage mid-call: every open Realtime connection is dropped at once. */
  dropSessions(): void;
  /** The next `count` chat completions fail with this status, or answer content that is not JSON (`garbage`). */
  failNextChat(options?: { status?: number; count?: number; garbage?: boolean }): void;
  stop(): Promise<void>;
};

const DEFAULT_API_KEY = "sk-sim-openai-0123456789";

function json(res: ServerResponse, status: number, body: unknown) {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}

function apiError(res: ServerResponse, status: number, message: string, code: string | null = null) {
  json(res, status, { error: { message, type: status === 401 ? "invalid_request_error" : "server_error", param: null, code } });
}

/**
 * A local stand-in for the OpenAI API subset the app uses, driven by the official packages: the Realtime API over
 * WebSocket (`/v1/realtime?model=…`, Bearer auth; see session.ts) for `@openai/agents-realtime`, and
 * `/v1/chat/completions` for the `openai` package: the analyser's strict structured outputs (chat-completions.ts) and
 * agent tests' agent, simulated caller and judge (conversation-models.ts).
 */
export async function startOpenAiSimulator(options: StartOpenAiSimulatorOptions = {}): Promise<OpenAiSimulator> {
  const apiKey = options.apiKey ?? DEFAULT_API_KEY;
  const sessions: RealtimeSessionRecord[] = [];
  const live = new Set<RealtimeSimSession>();
  const chatRequests: ChatCompletionRequest[] = [];
  const chatFailures: Array<{ status: number; remaining: number; garbage: boolean }> = [];
  let down = false;
  let responseDelayMs = options.responseDelayMs ?? 0;
  const authorized = (req: IncomingMessage) => req.headers.authorization === `Bearer ${apiKey}`;

  const speechRequests: SpeechRequest[] = [];
  async function answerSpeech(req: IncomingMessage, res: ServerResponse) {
    if (!authorized(req)) return apiError(res, 401, "Incorrect API key provided.", "invalid_api_key");
    if (down) return apiError(res, 503, "The server is overloaded or not ready yet.");
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body: SpeechRequest;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch {
      return apiError(res, 400, "We could not parse the JSON body of your request.");
    }
    if (typeof body.input !== "string" || !body.input || body.input.length > 4096) return apiError(res, 400, "'input' must be 1 to 4096 characters.");
    if (typeof body.model !== "string" || typeof body.voice !== "string") return apiError(res, 400, "'model' and 'voice' are required.");
    if ((body.response_format ?? "mp3") !== "pcm") return apiError(res, 400, "The simulator speaks response_format 'pcm' only.");
    speechRequests.push(body);
    const audio = speechPcm24k(body.input);
    res.writeHead(200, { "content-type": "audio/pcm", "content-length": audio.length }).end(audio);
  }

  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? "/", "http://sim");
      if (url.pathname === "/v1/audio/speech" && req.method === "POST") return answerSpeech(req, res);
      if (url.pathname !== "/v1/chat/completions" || req.method !== "POST") return apiError(res, 404, `Unknown request URL: ${req.method} ${url.pathname}.`, "unknown_url");
      if (!authorized(req)) return apiError(res, 401, "Incorrect API key provided.", "invalid_api_key");
      if (down) return apiError(res, 503, "The server is overloaded or not ready yet.");
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      let body: ChatCompletionRequest;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
      } catch {
        return apiError(res, 400, "We could not parse the JSON body of your request.");
      }
      chatRequests.push(body);
      const failure = chatFailures.find((f) => f.remaining > 0);
      if (failure) {
        failure.remaining -= 1;
        if (!failure.garbage) return apiError(res, failure.status, "The server had an error while processing your request.");
        return json(res, 200, { id: "chatcmpl-garbage", object: "chat.completion", created: 0, model: body.model, choices: [{ index: 0, message: { role: "assistant", content: "I think it went well!", refusal: null }, finish_reason: "stop", logprobs: null }] });
      }
      try {
        const conversation = body as ConversationRequest;
        json(res, 200, conversationRequestKind(conversation) ? answerConversationRequest(conversation) : answerAnalysisRequest(body));
      } catch (error) {
        if (error instanceof ChatRequestError) return apiError(res, error.status, error.message);
        throw error;
      }
    })().catch(() => {
      if (!res.headersSent) apiError(res, 500, "The server had an error while processing your request.");
    });
  });

  const wss = new WebSocketServer({ noServer: true });
  server.on("upgrade", (req, socket, head) => {
    const url = new URL(req.url ?? "/", "http://sim");
    const refuse = (status: number, text: string) => {
      socket.end(`HTTP/1.1 ${status} ${text}\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
    };
    if (url.pathname !== "/v1/realtime") return refuse(404, "Not Found");
    if (!authorized(req)) return refuse(401, "Unauthorized");
    if (down) return refuse(503, "Service Unavailable");
    wss.handleUpgrade(req, socket, head, (ws) => {
      const session = new RealtimeSimSession(ws, url.searchParams.get("model"), url.searchParams.get("sim_script") === "test-call" ? "test-call" : "phone", () => responseDelayMs);
      sessions.push(session.record);
      live.add(session);
      ws.on("close", () => live.delete(session));
    });
  });

  const sockets = new Set<Socket>();
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  if (options.unref) server.unref();
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    realtimeUrl: `ws://127.0.0.1:${port}/v1/realtime`,
    apiKey,
    sessions,
    chatRequests,
    speechRequests,
    setDown: (value) => {
      down = value;
    },
    setResponseDelay: (ms) => {
      responseDelayMs = Math.max(0, ms);
    },
    dropSessions: () => {
      for (const session of live) session.close();
    },
    failNextChat: ({ status = 500, count = 1, garbage = false } = {}) => void chatFailures.push({ status, remaining: count, garbage }),
    stop: async () => {
      for (const session of live) session.close();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
