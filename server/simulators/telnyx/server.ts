import { randomUUID } from "node:crypto";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { getLogger } from "@/server/observability/logger";
import { calleeScenarioFor, type CalleeScenario } from "../voice-script";
import { TelnyxCall, type AmdOverride, type DialParams } from "./call";
import { TelnyxMessaging } from "./messaging";
import { TelnyxNumbers } from "./numbers";
import { about, E164, ERRORS, isCallbackUrl, json, readJson, str, telnyxError } from "./rest";
import { newSigningKey } from "./signing";
import { WebhookSender, type SentWebhook } from "./webhooks";

/**
 * A local stand-in for Telnyx's API v2, driven by the official `telnyx` package (`new Telnyx({apiKey, baseURL})`).
 * Written from https://developers.telnyx.com/development/api-fundamentals/authentication (Bearer API key on every
 * request; a wrong key is 401 with error 10009), https://developers.telnyx.com/api/call-control/dial-call (the dial
 * parameters checked here), https://developers.telnyx.com/api/call-control/retrieve-call-status and the Call Control
 * command pages (`POST /v2/calls/{call_control_id}/actions/{command}` → `{data: {result: "ok"}}`; a command to a call
 * that has ended is 422 with error 90018). The call itself runs in call.ts, messaging in messaging.ts, numbers in
 * numbers.ts. Recording URLs are served without authentication, as Telnyx's presigned links are.
 */

export type StartTelnyxSimulatorOptions = {
  port?: number;
  host?: string;
  apiKey?: string;
  /** Where a public URL the app gave (webhooks, the `wss://` stream) is reachable from here: the tunnel in front of the app. */
  resolvePublicUrl?: (url: string) => string;
  /** Media time runs this many times faster than wall time (tests); 1 is real time. */
  speed?: number;
  log?: (message: string) => void;
};

export type TelnyxSimulator = {
  /** `http://127.0.0.1:PORT`. */
  origin: string;
  /** What replaces `https://api.telnyx.com/v2` in the client (`baseURL`). */
  baseURL: string;
  apiKey: string;
  /** The account's webhook public key, base64 as the portal shows it (`publicKey` of the client, or `unwrap`'s `key`). */
  publicKey: string;
  calls: Map<string, TelnyxCall>;
  /** Every webhook sent, with its raw body, signature headers and the receiver's status. */
  webhooks: SentWebhook[];
  /** REST requests served: method, path, status (never credentials). */
  requests: Array<{ method: string; path: string; status: number }>;
  callTo(number: string): TelnyxCall | undefined;
  /** Who answers `number` from now on, instead of its last digit's scenario. */
  setCallee(number: string, scenario: CalleeScenario): void;
  /** What the machine detector reports for calls to `number` (e.g. premium `silence` or `fax_detected`). */
  setAmdResult(number: string, override: AmdOverride): void;
  /** The callee of a live call presses keys (`call.dtmf.received`, and `dtmf` frames on its stream). */
  pressKeys(callControlId: string, digits: string): Promise<void>;
  messaging: TelnyxMessaging;
  numbers: TelnyxNumbers;
  /** Resolves when every call has ended and every webhook was delivered. */
  idle(): Promise<void>;
  stop(): Promise<void>;
};

const AMD_MODES = ["detect", "detect_beep", "detect_words", "greeting_end", "premium", "disabled"];
const COMMANDS = ["hangup", "answer", "transfer", "send_dtmf", "record_start", "record_stop", "streaming_start", "streaming_stop"];
const isDestination = (value: string | undefined): value is string => !!value && (E164.test(value) || /^sips?:[^@\s]+@\S+$/i.test(value));
const isStreamUrl = (value: string | undefined): boolean => !!value && /^wss?:\/\/\S+$/.test(value);

export async function startTelnyxSimulator(options: StartTelnyxSimulatorOptions = {}): Promise<TelnyxSimulator> {
  const apiKey = options.apiKey ?? "KEYSIM0123456789ABCDEF_simulated";
  const key = newSigningKey();
  const log = options.log ?? ((message: string) => getLogger("telnyx-simulator").warn(message));
  const resolvePublicUrl = options.resolvePublicUrl ?? ((url: string) => url);
  const webhooks: SentWebhook[] = [];
  const sender = new WebhookSender({ key, resolvePublicUrl, log, webhooks });
  const calls = new Map<string, TelnyxCall>();
  const callees = new Map<string, CalleeScenario>();
  const amdResults = new Map<string, AmdOverride>();
  const requests: TelnyxSimulator["requests"] = [];
  const speed = options.speed ?? 1;
  const messaging = new TelnyxMessaging(sender, speed);
  const numbers = new TelnyxNumbers();
  let origin = "";
  const userId = randomUUID();
  const callEnv = { speed, origin: () => origin, userId, webhooks: sender, resolvePublicUrl, log };

  function dial(res: ServerResponse, body: DialParams): number {
    const to = str(body, "to");
    const from = str(body, "from");
    if (!str(body, "connection_id")) return telnyxError(res, 422, about(ERRORS.missing, "connection_id", "The 'connection_id' parameter is required."));
    if (!isDestination(to)) return telnyxError(res, 422, about(ERRORS.e164, "to"));
    if (!from || !E164.test(from)) return telnyxError(res, 422, about(ERRORS.e164, "from"));
    for (const field of ["webhook_url", "webhook_url_failover"]) {
      const url = str(body, field);
      if (url && !isCallbackUrl(url)) return telnyxError(res, 422, about({ code: "10003", title: "Invalid URL", detail: "The URL provided was invalid, malformed, or too long." }, field));
    }
    const streamUrl = str(body, "stream_url");
    if (streamUrl !== undefined && !isStreamUrl(streamUrl)) return telnyxError(res, 422, about({ code: "10003", title: "Invalid URL", detail: "stream_url must be a ws:// or wss:// URL." }, "stream_url"));
    const amd = body.answering_machine_detection;
    if (amd !== undefined && (typeof amd !== "string" || !AMD_MODES.includes(amd))) return telnyxError(res, 422, about(ERRORS.badRequest, "answering_machine_detection", `answering_machine_detection must be one of ${AMD_MODES.join(", ")}.`));
    const codec = body.stream_bidirectional_codec;
    if (codec !== undefined && codec !== "PCMU") return telnyxError(res, 422, about(ERRORS.badRequest, "stream_bidirectional_codec", "The simulator carries PCMU only."));
    const scenario = callees.get(to) ?? calleeScenarioFor(to);
    const call = new TelnyxCall(callEnv, body, scenario, amdResults.get(to), scenario.kind === "human" && scenario.recording === "missing");
    calls.set(call.callControlId, call);
    return json(res, 200, { data: call.toJson() });
  }

  async function command(res: ServerResponse, call: TelnyxCall, action: string, body: Record<string, unknown>): Promise<number> {
    if (!call.isAlive) return telnyxError(res, 422, ERRORS.callEnded);
    const ok = () => json(res, 200, { data: { result: "ok" } });
    switch (action) {
      case "hangup":
        call.hangup();
        return ok();
      case "answer":
        // Answering applies to incoming calls; every simulated call is outbound and answered by the callee.
        call.events.push("answer-ignored");
        return ok();
      case "transfer": {
        const to = str(body, "to");
        if (!isDestination(to)) return telnyxError(res, 422, about(ERRORS.e164, "to"));
        call.transfer(to);
        return ok();
      }
      case "send_dtmf": {
        const digits = str(body, "digits");
        if (!digits || !/^[0-9A-D*#wW]+$/.test(digits)) return telnyxError(res, 422, about(ERRORS.badRequest, "digits", "digits must be 0-9, A-D, *, # or w/W pauses."));
        call.sendDtmf(digits);
        return ok();
      }
      case "record_start": {
        const format = str(body, "format");
        const channels = str(body, "channels");
        if (format !== "wav" && format !== "mp3") return telnyxError(res, 422, about(ERRORS.missing, "format", "format must be wav or mp3."));
        if (channels !== "single" && channels !== "dual") return telnyxError(res, 422, about(ERRORS.missing, "channels", "channels must be single or dual."));
        if (!call.activeRecording) call.startRecording(channels);
        return ok();
      }
      case "record_stop":
        void call.stopRecording();
        return ok();
      case "streaming_start": {
        if (!isStreamUrl(str(body, "stream_url"))) return telnyxError(res, 422, about({ code: "10003", title: "Invalid URL", detail: "stream_url must be a ws:// or wss:// URL." }, "stream_url"));
        void call.startStream(body);
        return ok();
      }
      case "streaming_stop":
        call.stopStream();
        return ok();
      default:
        return telnyxError(res, 404, ERRORS.notFound);
    }
  }

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const url = new URL(req.url ?? "/", "http://sim");
    const path = url.pathname;
    const recording = path.match(/^\/recordings\/([0-9a-f-]{36})\.wav$/);
    if (recording && req.method === "GET") {
      const found = [...calls.values()].flatMap((call) => call.recordings.map((entry) => ({ call, entry }))).find(({ entry }) => entry.id === recording[1]);
      if (!found || !found.entry.available || found.entry.endMs === null) return telnyxError(res, 404, ERRORS.notFound);
      const wav = found.call.recordingWav(found.entry);
      res.writeHead(200, { "content-type": "audio/wav", "content-length": wav.length }).end(wav);
      return 200;
    }
    if (req.headers.authorization !== `Bearer ${apiKey}`) return telnyxError(res, 401, ERRORS.authentication);
    const body = req.method === "POST" ? await readJson(req) : {};
    if (body === null) return telnyxError(res, 400, ERRORS.badRequest);
    if (path === "/v2/calls" && req.method === "POST") return dial(res, body);
    const callMatch = path.match(/^\/v2\/calls\/([^/]+)(?:\/actions\/([a-z_]+))?$/);
    if (callMatch) {
      const call = calls.get(decodeURIComponent(callMatch[1]!));
      if (!call) return telnyxError(res, 404, ERRORS.notFound);
      const action = callMatch[2];
      if (!action && req.method === "GET") return json(res, 200, { data: call.statusJson() });
      if (action && req.method === "POST" && COMMANDS.includes(action)) return command(res, call, action, body);
      return telnyxError(res, 404, ERRORS.notFound);
    }
    if (path === "/v2/messages" && req.method === "POST") return messaging.send(res, body);
    if (path === "/v2/available_phone_numbers" && req.method === "GET") return numbers.search(res, url.searchParams);
    if (path === "/v2/number_orders" && req.method === "POST") return numbers.order(res, body);
    if (path === "/v2/phone_numbers" && req.method === "GET") return numbers.list(res, url.searchParams);
    const phoneNumberMatch = path.match(/^\/v2\/phone_numbers\/([^/]+)$/);
    if (phoneNumberMatch && req.method === "DELETE") return numbers.release(res, decodeURIComponent(phoneNumberMatch[1]!));
    return telnyxError(res, 404, ERRORS.notFound);
  }

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    handle(req, res)
      .then((status) => {
        requests.push({ method: req.method ?? "", path: new URL(req.url ?? "/", "http://sim").pathname, status });
        if (requests.length > 5000) requests.shift();
      })
      .catch((error: unknown) => {
        log(`request failed: ${error instanceof Error ? error.stack : String(error)}`);
        if (!res.headersSent) telnyxError(res, 500, ERRORS.unexpected);
      });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  return {
    origin,
    baseURL: `${origin}/v2`,
    apiKey,
    publicKey: key.publicKey,
    calls,
    webhooks,
    requests,
    messaging,
    numbers,
    callTo: (number) => [...calls.values()].reverse().find((call) => call.to === number),
    setCallee: (number, scenario) => void callees.set(number, scenario),
    setAmdResult: (number, override) => void amdResults.set(number, override),
    pressKeys: async (callControlId, digits) => {
      const call = calls.get(callControlId);
      if (!call?.isAlive) throw new Error(`No live call ${callControlId}`);
      await call.calleePresses(digits);
    },
    idle: async () => {
      await Promise.all([...calls.values()].map((call) => call.done()));
      await sender.idle();
    },
    stop: async () => {
      for (const call of calls.values()) call.finish("normal_clearing", "unknown", "200");
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
