/**
 * The query parameters of the app's WebSockets and of its routes outside `/api/v1` and `/api/trpc`, on the built app as
 * `npm start` runs it (with VOICE_ENGINE=twilio-realtime, so Twilio's callback routes exist): a NUL or a malformed
 * value is a 400 `{error, message}` naming the parameter — an HTTP answer before any upgrade for a WebSocket — and never
 * reaches PostgreSQL; the listen socket, like the test-call socket, refuses an upgrade without the app's Origin.
 */
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { twilioSignature, type TwilioSimulator } from "@/server/simulators/twilio";
import type { OpenAiSimulator } from "@/server/simulators/openai-realtime";
import { signIn, startVoiceApp, VOICE_PUBLIC_BASE_URL, type BuiltApp } from "./harness";

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let supportCookie: string;

beforeAll(async () => {
  // A first start seeds the demo: on a busy machine that alone takes minutes.
  ({ app, twilio, openai } = await startVoiceApp({ twilioSpeed: 2, readyTimeoutMs: 540_000 }));
  const support = app.demo.dashboard.users.find((user) => user.role === "support")!;
  supportCookie = (await signIn(app, support, app.primary.orgId)).cookie;
}, 600_000);

afterAll(async () => {
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
});

type Answer = { status: number; body: any };

/** A WebSocket upgrade request exactly as written; the answer's status and (JSON) body, or 101. */
function upgrade(target: string, headers: Record<string, string> = {}): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(app.port, "127.0.0.1");
    let text = "";
    const finish = () => {
      const [head = "", body = ""] = text.split("\r\n\r\n");
      let parsed: unknown = body;
      try {
        parsed = body ? JSON.parse(body) : null;
      } catch {
        /* not JSON */
      }
      resolve({ status: Number(head.split(" ")[1]), body: parsed });
    };
    socket.setEncoding("utf8");
    socket.on("data", (chunk: string) => {
      text += chunk;
      if (text.startsWith("HTTP/1.1 101") && text.includes("\r\n\r\n")) socket.destroy();
    });
    socket.on("error", reject);
    socket.on("close", finish);
    const lines = [
      `GET ${target} HTTP/1.1`,
      `Host: 127.0.0.1:${app.port}`,
      "Connection: Upgrade",
      "Upgrade: websocket",
      "Sec-WebSocket-Version: 13",
      "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    ];
    socket.write(`${lines.join("\r\n")}\r\n\r\n`);
  });
}

/** A Twilio callback, signed as Twilio signs it (over the public URL it was given and the form) unless `signed: false`. */
async function twilioCallback(pathAndQuery: string, form: Record<string, string>, { signed = true } = {}): Promise<Answer> {
  const signature = twilioSignature(twilio.authToken, `${VOICE_PUBLIC_BASE_URL}${pathAndQuery}`, form);
  const res = await fetch(`${app.origin}${pathAndQuery}`, {
    method: "POST",
    headers: { "content-type": "application/x-www-form-urlencoded", ...(signed ? { "x-twilio-signature": signature } : {}) },
    body: new URLSearchParams(form).toString(),
  });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    /* not JSON */
  }
  return { status: res.status, body };
}

/** The 400 of `/api/v1`'s validation: `{error, message, details}`, the message naming the parameter. */
const invalid = (parameter: string) => ({ error: "INVALID_REQUEST", message: expect.stringContaining(parameter), details: { issues: [expect.objectContaining({ path: parameter })] } });
const UNKNOWN_CALL = "call.01jxq0v7m3k9h2a5b8c4d6e0f1";

describe("query parameters outside /api/v1 (npm start)", () => {
  it("the listen socket: a NUL in callId is a 400 before the upgrade and never reaches the database; no Origin is refused", async () => {
    const asSupport = { cookie: supportCookie, origin: app.origin };
    for (const callId of ["%00", "call.%00x"]) {
      const answer = await upgrade(`/ws/listen?callId=${callId}`, asSupport);
      expect(answer, callId).toMatchObject({ status: 400, body: invalid("callId") });
    }
    expect(await upgrade("/ws/listen", asSupport)).toMatchObject({ status: 400, body: invalid("callId") });
    // A well-formed ID goes on to the checks that read the database: this call does not exist.
    expect((await upgrade(`/ws/listen?callId=${UNKNOWN_CALL}`, asSupport)).status).toBe(404);
    // Same origin only, as for the test-call socket: no Origin at all is refused too.
    expect((await upgrade(`/ws/listen?callId=${UNKNOWN_CALL}`, { cookie: supportCookie })).status).toBe(403);
    expect((await upgrade(`/ws/listen?callId=${UNKNOWN_CALL}`, { cookie: supportCookie, origin: "https://evil.example" })).status).toBe(403);
    await new Promise((resolve) => setTimeout(resolve, 500));
    const leaked = app.logs().filter((line) => /invalid byte sequence|0x00/.test(JSON.stringify(line)));
    expect(leaked, "the database never saw the NUL").toEqual([]);
    expect(app.logs().filter((line) => line.component === "listen" && (line.level === "error" || line.level === 50))).toEqual([]);
  });

  it("the test-call socket: a NUL in ticket is a 400 before the upgrade", async () => {
    expect(await upgrade("/ws/agent-test?ticket=%00", { origin: app.origin })).toMatchObject({ status: 400, body: invalid("ticket") });
    expect((await upgrade("/ws/agent-test?ticket=%00")).status).toBe(403);
  });

  it("a signed recording link with a malformed query is a 400", async () => {
    const res = await fetch(`${app.origin}/api/recordings/recordings/x.wav?expires=%00&signature=abc`);
    expect({ status: res.status, body: await res.json() }).toMatchObject({ status: 400, body: invalid("expires") });
  });

  it("Twilio's signed callbacks with a NUL in the query are 400s (unsigned ones stay 403)", async () => {
    const status = { CallSid: `CA${"0".repeat(32)}`, CallStatus: "completed" };
    expect(await twilioCallback("/api/voice/twilio/status?callId=%00", status)).toMatchObject({ status: 400, body: invalid("callId") });
    expect(await twilioCallback("/api/voice/twilio/status?callId=call.%00x", status)).toMatchObject({ status: 400, body: invalid("callId") });
    expect(await twilioCallback(`/api/voice/twilio/transfer-status?callId=${UNKNOWN_CALL}&transferId=%00`, status)).toMatchObject({ status: 400, body: invalid("transferId") });
    expect((await twilioCallback("/api/voice/twilio/status?callId=%00", status, { signed: false })).status).toBe(403);
    const sms = { MessageSid: `SM${"0".repeat(32)}`, MessageStatus: "delivered" };
    expect(await twilioCallback("/api/twilio/messages/status?messageId=%00", sms)).toMatchObject({ status: 400, body: invalid("messageId") });
    expect((await twilioCallback("/api/twilio/messages/status?messageId=%00", sms, { signed: false })).status).toBe(403);
    const leaked = app.logs().filter((line) => /invalid byte sequence|0x00/.test(JSON.stringify(line)));
    expect(leaked, "the database never saw the NUL").toEqual([]);
  });
});
