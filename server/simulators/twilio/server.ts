import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { newSid, SimCall, type CreateCallParams, type InboundCaller, type SentCallback, type SimCallEnvironment, type SimCallOptions } from "./call";
import type { SimRoom } from "./conference";
import { calleeScenarioFor, PHONE_MENU, type CalleeScenario } from "../voice-script";
import { SimMessaging, type SimOptOutHandling } from "./messages";
import { AnswerRates, type AnswerRateOptions } from "./answer-rate";
import { SimCallerIds, type CallerIdValidationOutcome } from "./caller-ids";
import { SimNumbers, type AccountNumberOptions, type SimIncomingNumber } from "./numbers";
import { json, twilioError } from "./rest";
import { getLogger } from "@/server/observability/logger";

export type StartTwilioSimulatorOptions = {
  port?: number;
  host?: string;
  accountSid?: string;
  authToken?: string;
  /** API keys (`SK…` → secret) that may authenticate REST requests besides the account SID + auth token. */
  apiKeys?: Record<string, string>;
  /**
   * Where a public URL the app handed us (callbacks, TwiML, the `wss://` stream) is reachable from this machine:
   * the tunnel in front of the app. Signatures are always computed over the public URL, as Twilio does.
   */
  resolvePublicUrl?: (url: string) => string;
  /** Media time runs this many times faster than wall time (tests); 1 is real time. */
  speed?: number;
  /** How the account answers opt-out keywords texted to its numbers (default: Twilio's default handling; messages.ts). */
  messagingOptOutHandling?: SimOptOutHandling;
  log?: (message: string) => void;
};

export type TwilioSimulator = {
  /** `http://127.0.0.1:PORT`: what replaces `https://api.twilio.com` in the client (TWILIO_API_BASE_URL). */
  origin: string;
  accountSid: string;
  authToken: string;
  calls: Map<string, SimCall>;
  /** Every callback sent (status, AMD, recording, TwiML fetch) with its signature and the app's answer. */
  callbacks: SentCallback[];
  /** REST requests served: method, path, status (never credentials). */
  requests: Array<{ method: string; path: string; status: number }>;
  callTo(number: string): SimCall | undefined;
  /**
   * A person calls one of our numbers (`to`) from `from`: Twilio requests the number's voice URL (signed), runs the
   * TwiML (media streams included) and posts the number's status callback at the end. The caller says `lines`
   * (default: "Hello?"), each after the agent has spoken. See SimCall.runInbound. Without `url`, the call goes where
   * the account's number `to` points (VoiceUrl, VoiceMethod, StatusCallback), as Twilio routes it; a number the
   * account does not hold (never bought, released) or that has no VoiceUrl is not in service: it throws
   * SimNumberNotInServiceError (the caller hears the carrier's intercept; Twilio never sees the call). With `url`
   * (and `statusCallback`) the test says where the number points itself, whatever the account holds.
   */
  callFrom(params: { from: string; to: string; url?: string; statusCallback?: string; lines?: InboundCaller["lines"] }): SimCall;
  /** The latest call placed to us from this number. */
  callFromNumber(number: string): SimCall | undefined;
  /** The callee of `number` hangs up as soon as the media stream has started (an early hang-up). */
  hangUpAtStreamStart(number: string): void;
  /** Who answers `number` from now on (instead of its last digit's scenario): e.g. ASKS_FOR_A_PERSON. */
  setCallee(number: string, scenario: CalleeScenario): void;
  /** `number` is a company's phone menu ("for sales, press 1"; voice-script.ts PHONE_MENU, or the menu given). */
  setMenu(number: string, menu?: Extract<CalleeScenario, { kind: "menu" }>): void;
  /** Conference rooms in use, by name. */
  rooms: Map<string, SimRoom>;
  /** The next `count` REST requests (matching `path` if given) fail with this HTTP status (default 503). */
  failNext(options?: { status?: number; count?: number; path?: string }): void;
  /** Programmable Messaging (server/simulators/twilio/messages.ts): messages, their callbacks, `receive` (a person texts us). */
  messaging: SimMessaging;
  /** The account's phone numbers (numbers.ts): `incoming` by SID, `find(number)`. */
  numbers: SimNumbers;
  /** Verified caller IDs and their validation calls (caller-ids.ts): `callerIds` by SID, `validations`, `find(number)`. */
  callerIds: SimCallerIds;
  /**
   * Puts `number` in the account without buying it (a platform number that was there already): not for sale any more,
   * listed by IncomingPhoneNumbers, reachable by callFrom / messaging.receive through the webhooks given here or set
   * later through the API. Capabilities default to voice and SMS.
   */
  addAccountNumber(number: string, options?: AccountNumberOptions): SimIncomingNumber;
  /** What whoever answers Twilio's caller-ID validation call to `number` does from now on (default `enters-code`). */
  setCallerIdValidation(number: string, outcome: CallerIdValidationOutcome): void;
  /**
   * Calls placed (REST) with caller ID `fromNumber` are picked up with probability `rate` (seeded, deterministic), else
   * ring out (`no-answer`) or reach voicemail; `null` removes it. Other caller IDs keep the last-digit scenarios. See answer-rate.ts.
   */
  setAnswerRate(fromNumber: string, rate: number | null, options?: AnswerRateOptions): void;
  /** Resolves when every call has ended and sent its callbacks. */
  idle(): Promise<void>;
  stop(): Promise<void>;
};

const DEFAULT_ACCOUNT_SID = `AC${"0".repeat(31)}1`;
const DEFAULT_AUTH_TOKEN = "sim-auth-token-0123456789abcdef";
const E164 = /^\+[1-9]\d{6,14}$/;

async function readForm(req: IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
}

/**
 * A local stand-in for Twilio Programmable Voice, driven by the official `twilio` package: the REST Calls resource
 * (create, update, fetch, list) behind Basic auth, recordings served (authenticated) as WAV, and every call run by
 * `SimCall` — signed callbacks, TwiML, Media Streams, AMD — with the outcome chosen by the dialed number's last digit.
 */
export async function startTwilioSimulator(options: StartTwilioSimulatorOptions = {}): Promise<TwilioSimulator> {
  const accountSid = options.accountSid ?? DEFAULT_ACCOUNT_SID;
  const authToken = options.authToken ?? DEFAULT_AUTH_TOKEN;
  const credentials = new Map<string, string>([[accountSid, authToken], ...Object.entries(options.apiKeys ?? {})]);
  const calls = new Map<string, SimCall>();
  const callbacks: SentCallback[] = [];
  const requests: TwilioSimulator["requests"] = [];
  const failures: Array<{ status: number; remaining: number; path?: string }> = [];
  const log = options.log ?? ((message: string) => getLogger("twilio-simulator").warn(message));
  const earlyHangups = new Set<string>();
  const callees = new Map<string, CalleeScenario>();
  const rooms = new Map<string, SimRoom>();
  const answerRates = new AnswerRates();
  const env: SimCallEnvironment = {
    accountSid,
    authToken,
    speed: options.speed ?? 1,
    resolvePublicUrl: options.resolvePublicUrl ?? ((url: string) => url),
    callbacks,
    log,
    hangsUpAtStreamStart: (to: string) => earlyHangups.has(to),
    scenarioFor: (to: string) => callees.get(to),
    pickUp: (from, scenario) => answerRates.scenarioFor(from, scenario),
    rooms,
    startChildCall: (params: CreateCallParams, options: SimCallOptions) => {
      const call = new SimCall(env, params, options);
      calls.set(call.sid, call);
      return call;
    },
  };
  const base = `/2010-04-01/Accounts/${accountSid}`;
  const numbers = new SimNumbers(accountSid);
  const callerIds = new SimCallerIds({ accountSid, authToken, speed: env.speed, resolvePublicUrl: env.resolvePublicUrl, log, callbacks });
  const messaging = new SimMessaging({ accountSid, authToken, resolvePublicUrl: env.resolvePublicUrl, log, optOutHandling: options.messagingOptOutHandling, smsUrlOf: (number) => numbers.smsUrlOf(number) });

  const authorized = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization ?? "";
    if (!header.startsWith("Basic ")) return false;
    const [user, ...rest] = Buffer.from(header.slice(6), "base64").toString("utf8").split(":");
    return !!user && credentials.get(user) === rest.join(":");
  };

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<number> {
    const url = new URL(req.url ?? "/", "http://sim");
    const path = url.pathname;
    if (!authorized(req)) {
      res.setHeader("www-authenticate", 'Basic realm="Twilio API"');
      twilioError(res, 401, 20003, "Authenticate");
      return 401;
    }
    const failure = failures.find((f) => f.remaining > 0 && (!f.path || path.includes(f.path)));
    if (failure) {
      failure.remaining -= 1;
      twilioError(res, failure.status, 20500, "Internal Server Error");
      return failure.status;
    }
    if (!path.startsWith(base + "/")) {
      twilioError(res, 404, 20404, "The requested resource was not found");
      return 404;
    }
    const rest = path.slice(base.length);
    const messagesStatus = await messaging.handle(req, res, rest, () => readForm(req), url);
    if (messagesStatus !== null) return messagesStatus;
    const numbersStatus = (await numbers.handle(req, res, rest, () => readForm(req), url)) ?? (await callerIds.handle(req, res, rest, () => readForm(req), url));
    if (numbersStatus !== null) return numbersStatus;
    if (rest === "/Calls.json" && req.method === "POST") {
      const form = await readForm(req);
      const params: Record<string, string | string[]> = {};
      for (const key of new Set(form.keys())) {
        const values = form.getAll(key);
        params[key] = values.length > 1 ? values : values[0]!;
      }
      const to = String(params.To ?? "");
      const from = String(params.From ?? "");
      if ((!E164.test(to) && !/^sips?:[^@\s]+@\S+$/i.test(to)) || (env.scenarioFor?.(to) ?? calleeScenarioFor(to)).kind === "invalid-number") {
        twilioError(res, 400, 21211, `Invalid 'To' Phone Number: ${to}`);
        return 400;
      }
      if (!E164.test(from)) {
        twilioError(res, 400, 21212, `Invalid 'From' Phone Number: ${from}`);
        return 400;
      }
      if (!params.Url && !params.Twiml) {
        twilioError(res, 400, 21205, "Url parameter is required.");
        return 400;
      }
      const call = new SimCall(env, params);
      calls.set(call.sid, call);
      json(res, 201, call.toJson());
      return 201;
    }
    if (rest === "/Calls.json" && req.method === "GET") {
      const to = url.searchParams.get("To");
      const from = url.searchParams.get("From");
      const list = [...calls.values()].filter((call) => (!to || call.to === to) && (!from || call.from === from)).map((call) => call.toJson());
      json(res, 200, { calls: list, page: 0, page_size: 50, start: 0, end: list.length, first_page_uri: `${base}/Calls.json`, next_page_uri: null, previous_page_uri: null, uri: `${base}/Calls.json` });
      return 200;
    }
    const callMatch = rest.match(/^\/Calls\/(CA[0-9a-f]{32})\.json$/);
    if (callMatch) {
      const call = calls.get(callMatch[1]!);
      if (!call) {
        twilioError(res, 404, 20404, "The requested resource was not found");
        return 404;
      }
      if (req.method === "POST") {
        const form = await readForm(req);
        if (call.isFinal) {
          twilioError(res, 400, 21220, "Call is not in-progress. Cannot redirect.");
          return 400;
        }
        try {
          call.update(form);
        } catch (error) {
          twilioError(res, 400, 12100, error instanceof Error ? error.message : "Document parse failure");
          return 400;
        }
      }
      json(res, 200, call.toJson());
      return 200;
    }
    const callRecording = rest.match(/^\/Calls\/(CA[0-9a-f]{32})\/Recordings\/(RE[0-9a-f]{32}|Twilio\.CURRENT)\.json$/);
    if (callRecording) {
      const call = calls.get(callRecording[1]!);
      const named = callRecording[2] === "Twilio.CURRENT" ? call?.recordingSid : callRecording[2];
      if (!call || !call.recordingSid || named !== call.recordingSid) {
        twilioError(res, 404, 20404, "The requested resource was not found");
        return 404;
      }
      if (req.method === "POST") {
        const form = await readForm(req);
        try {
          if (!call.updateRecording(form.get("Status") ?? "")) {
            twilioError(res, 400, 21220, "Recording is not in progress.");
            return 400;
          }
        } catch (error) {
          twilioError(res, 400, 21217, error instanceof Error ? error.message : "Invalid Status");
          return 400;
        }
      }
      json(res, 200, call.recordingJson());
      return 200;
    }
    const deleteRecording = rest.match(/^\/Recordings\/(RE[0-9a-f]{32})\.json$/);
    if (deleteRecording && req.method === "DELETE") {
      const call = [...calls.values()].find((candidate) => candidate.recordingSid === deleteRecording[1] && !candidate.recordingDeleted);
      if (!call) {
        twilioError(res, 404, 20404, "The requested resource was not found");
        return 404;
      }
      call.recordingDeleted = true;
      call.recordingAvailable = false;
      res.writeHead(204).end();
      return 204;
    }
    const recordingMatch = rest.match(/^\/Recordings\/(RE[0-9a-f]{32})(\.wav)?$/);
    if (recordingMatch && req.method === "GET") {
      const call = [...calls.values()].find((candidate) => candidate.recordingSid === recordingMatch[1]);
      if (!call || !call.recordingAvailable) {
        twilioError(res, 404, 20404, "The requested resource was not found");
        return 404;
      }
      const wav = call.recordingWav();
      res.writeHead(200, { "content-type": "audio/x-wav", "content-length": wav.length }).end(wav);
      return 200;
    }
    twilioError(res, 404, 20404, "The requested resource was not found");
    return 404;
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
        if (!res.headersSent) twilioError(res, 500, 20500, "Internal Server Error");
      });
  });
  server.on("connection", (socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    origin: `http://127.0.0.1:${port}`,
    accountSid,
    authToken,
    calls,
    callbacks,
    requests,
    messaging,
    numbers,
    callerIds,
    addAccountNumber: (number, numberOptions) => numbers.addAccountNumber(number, numberOptions),
    setCallerIdValidation: (number, outcome) => callerIds.setOutcome(number, outcome),
    setAnswerRate: (fromNumber, rate, rateOptions) => answerRates.set(fromNumber, rate, rateOptions),
    callTo: (number) => [...calls.values()].reverse().find((call) => call.direction !== "inbound" && call.to === number),
    callFrom: ({ from, to, url, statusCallback, lines }) => {
      if (!E164.test(from) || !E164.test(to)) throw new Error(`callFrom needs E.164 numbers (from ${from}, to ${to})`);
      const route = url ? { url, method: "POST", statusCallback: statusCallback ?? null } : numbers.voiceRouteOf(to);
      const params: Record<string, string> = { From: from, To: to, Url: route.url, Method: route.method, ...(route.statusCallback ? { StatusCallback: route.statusCallback } : {}) };
      const call = new SimCall(env, params, { inbound: { lines: lines ?? ["callee.hello-short"] } });
      calls.set(call.sid, call);
      return call;
    },
    callFromNumber: (number) => [...calls.values()].reverse().find((call) => call.direction === "inbound" && call.from === number),
    hangUpAtStreamStart: (number) => void earlyHangups.add(number),
    setCallee: (number, scenario) => void callees.set(number, scenario),
    setMenu: (number, menu = PHONE_MENU as Extract<CalleeScenario, { kind: "menu" }>) => void callees.set(number, menu),
    rooms,
    failNext: ({ status = 503, count = 1, path } = {}) => void failures.push({ status, remaining: count, path }),
    idle: async () => {
      await messaging.idle();
      await callerIds.idle();
      await Promise.all([...calls.values()].map((call) => call.done()));
      const deadline = Date.now() + 10_000;
      while ([...calls.values()].some((call) => call.isFinal && !call.events.includes("callbacks-done")) && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    stop: async () => {
      callerIds.stop();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export { newSid };
