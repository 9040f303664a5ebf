import http from "node:http";
import type { AddressInfo } from "node:net";
import Telnyx from "telnyx";
import { WebSocketServer, type WebSocket } from "ws";
import { startTelnyxSimulator, type TelnyxSimulator } from "@/server/simulators/telnyx";

/** The app's public origin as given to Telnyx; the simulator reaches it on loopback (webhooks and the media socket). */
export const PUBLIC_ORIGIN = "https://app.example.test";
export const STREAM_URL = "wss://app.example.test/media";
export const CONNECTION_ID = "1684641123236054244";

export type ReceivedWebhook = { path: string; body: string; headers: Record<string, string>; event: { data: { event_type: string; payload: Record<string, unknown> } } };

export type TelnyxStack = {
  telnyx: TelnyxSimulator;
  /** The official client, pointed at the simulator, with the simulator's public key for `webhooks.unwrap`. */
  client: Telnyx;
  /** Webhooks the app's receiver got, raw body and headers as delivered. */
  received: ReceivedWebhook[];
  /** Media sockets the simulator opened to the app, in order. */
  sockets: WebSocket[];
  /** Waits for a webhook of `eventType` (about `callControlId` when given). */
  webhook(eventType: string, callControlId?: string, timeoutMs?: number): Promise<ReceivedWebhook>;
  events(callControlId: string): string[];
  stop(): Promise<void>;
};

export async function waitFor<T>(check: () => T | undefined | null | false, what: string, timeoutMs = 10_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A Telnyx simulator, a receiver standing in for the app's webhook endpoint, and a WebSocket server for media. */
export async function startTelnyxStack(options: { speed?: number } = {}): Promise<TelnyxStack> {
  const received: ReceivedWebhook[] = [];
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      received.push({ path: req.url ?? "/", body, headers: req.headers as Record<string, string>, event: JSON.parse(body) });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  const receiverPort = (receiver.address() as AddressInfo).port;
  const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
  await new Promise<void>((resolve) => wss.once("listening", resolve));
  const wsPort = (wss.address() as AddressInfo).port;
  const sockets: WebSocket[] = [];
  wss.on("connection", (socket) => sockets.push(socket));
  const logs: string[] = [];
  const telnyx = await startTelnyxSimulator({
    speed: options.speed ?? 4,
    log: (message) => logs.push(message),
    resolvePublicUrl: (url) => url.replace(STREAM_URL, `ws://127.0.0.1:${wsPort}/media`).replace(PUBLIC_ORIGIN, `http://127.0.0.1:${receiverPort}`),
  });
  const client = new Telnyx({ apiKey: telnyx.apiKey, baseURL: telnyx.baseURL, publicKey: telnyx.publicKey, maxRetries: 0 });
  const about = (hook: ReceivedWebhook, eventType: string, id?: string) => hook.event.data.event_type === eventType && (!id || hook.event.data.payload.call_control_id === id);
  return {
    telnyx,
    client,
    received,
    sockets,
    webhook: (eventType, id, timeoutMs = 10_000) => waitFor(() => received.find((hook) => about(hook, eventType, id)), `${eventType} webhook`, timeoutMs),
    events: (id) => received.filter((hook) => hook.event.data.payload.call_control_id === id).map((hook) => hook.event.data.event_type),
    stop: async () => {
      await telnyx.stop();
      for (const socket of wss.clients) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
      receiver.closeAllConnections();
      await new Promise<void>((resolve) => receiver.close(() => resolve()));
    },
  };
}

/** The error the official client threw (status and Telnyx's `errors`), or a failure when the call succeeded. */
export async function apiError(run: Promise<unknown>): Promise<{ status: number; codes: string[] }> {
  try {
    await run;
  } catch (error) {
    const { status, error: body } = error as { status: number; error: { errors?: Array<{ code: string }> } };
    return { status, codes: (body?.errors ?? []).map((entry) => entry.code) };
  }
  throw new Error("expected Telnyx to refuse");
}
