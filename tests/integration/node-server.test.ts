import { fork, type ChildProcess } from "node:child_process";
import { createHmac } from "node:crypto";
import http from "node:http";
import net from "node:net";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestAgent, createTestOrganization } from "../factories";
import { useTestDb } from "../helpers/db";
import { signVoiceEvent } from "@/server/voice/signature";

/**
 * The production server (server/http/node-server.ts) in a child process, Next.js stubbed: raw requests a fetch client
 * would normalize or refuse to send, and the memory the server needs while refusing huge bodies.
 */
const db = useTestDb();
let child: ChildProcess;
let port: number;

function ask<T>(message: string): Promise<T> {
  return new Promise((resolve) => {
    child.once("message", (reply) => resolve(reply as T));
    child.send(message);
  });
}

beforeAll(async () => {
  child = fork(path.resolve("tests/helpers/node-server-process.ts"), [], {
    execArgv: ["--import", "tsx"],
    // A production server on the test database: the settings production requires with DATABASE_URL (server/config/env.ts).
    env: {
      ...process.env,
      NODE_ENV: "production",
      NEXTAUTH_SECRET: "node-server-test-secret-0123456789",
      APP_SECRET: "node-server-test-app-secret-0123456789",
      APP_ENCRYPTION_KEY: Buffer.alloc(32, 7).toString("base64"),
      APP_BASE_URL: "http://localhost:3000",
    },
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  port = await new Promise<number>((resolve, reject) => {
    child.once("message", (message) => resolve((message as { port: number }).port));
    child.once("exit", (code) => reject(new Error(`server exited with ${code}`)));
  });
}, 60_000);

afterAll(() => {
  child?.kill();
});

/** Sends bytes exactly as given and returns everything the server answers until it closes the connection. */
function raw(request: string): Promise<{ status: number; headers: string; body: string; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => {
      const [head = "", body = ""] = text.split("\r\n\r\n", 2);
      resolve({ status: Number(head.split(" ")[1]), headers: head, body, text });
    });
    socket.setTimeout(10_000, () => socket.destroy());
    socket.write(request);
  });
}

const line = (target: string, headers: string[] = ["Host: localhost"], method = "GET") =>
  `${method} ${target} HTTP/1.1\r\n${[...headers, "Connection: close"].join("\r\n")}\r\n\r\n`;

describe("node-server: raw request lines and headers", () => {
  it("answers 400 to dot segments in the raw path instead of resolving them", async () => {
    for (const target of ["/api/v1/../../etc/passwd", "/api/v1/%2e%2e/%2E%2e/etc/passwd", "/api/v1/./openapi.json", "/_next/static/../../../package.json", "/../x"]) {
      const res = await raw(line(target));
      expect(res.status, target).toBe(400);
      expect(JSON.parse(res.body), target).toEqual({ error: "INVALID_REQUEST", message: expect.stringContaining("segments") });
    }
  });

  it("answers 400 to a malformed Host header on every path", async () => {
    for (const host of ["a b", "user@evil.example", "", "localhost:99999", "evil.example/x"]) {
      for (const target of ["/api/v1/credits/usage", "/sign-in"]) {
        const res = await raw(line(target, [`Host: ${host}`]));
        expect(res.status, `${host} ${target}`).toBe(400);
        expect(JSON.parse(res.body)).toEqual({ error: "INVALID_REQUEST", message: expect.stringContaining("Host") });
      }
    }
  });

  it("answers 405 METHOD_NOT_ALLOWED to TRACE and other methods nothing here serves", async () => {
    for (const [method, target] of [
      ["TRACE", "/api/v1/credits/usage"],
      ["TRACE", "/"],
      ["PROPFIND", "/api/v1/agents"],
      ["CONNECT", "/api/v1/agents"],
      ["FOO", "/api/v1/credits/usage"],
    ] as const) {
      const res = await raw(line(target, ["Host: localhost"], method));
      expect(res.status, `${method} ${target}`).toBe(405);
      expect(JSON.parse(res.body)).toEqual({ error: "METHOD_NOT_ALLOWED", message: expect.any(String) });
    }
  });

  it("serves an absolute-form target as its path, ignoring the host it names", async () => {
    const res = await raw(line("http://evil.example/api/v1/openapi.json", ["Host: evil.example"]));
    expect(res.status).toBe(200);
    expect(res.body).not.toContain("evil");
    const star = await raw(line("*", ["Host: localhost"], "OPTIONS"));
    expect(star.status).toBe(204);
  });

  it("answers HEAD with %00 or bad percent-encoding in the path with a 4xx, and decodes like GET", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const head = (target: string) => raw(line(target, ["Host: localhost", `x-api-key: ${apiKey}`], "HEAD"));
    expect((await head("/api/v1/agents/%00/schedule/sequence")).status).toBe(404);
    expect((await head("/api/v1/agents/%E0%A4%A/schedule/sequence")).status).toBe(400);
    const encoded = agent.id.replace(/^a/, "%61");
    expect((await head(`/api/v1/agents/${encoded}/schedule/sequence`)).status).toBe(200);
    const get = await raw(line(`/api/v1/agents/${encoded}/outcomes`, ["Host: localhost", `x-api-key: ${apiKey}`]));
    expect(get.status).toBe(200);
  });

  it("answers a malformed request line with 400 {error, message}", async () => {
    const res = await raw("GET /api/v1/openapi.json HTTP/1.1\r\nHost localhost\r\n\r\n");
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body)).toEqual({ error: "INVALID_REQUEST", message: expect.any(String) });
  });
});

type Upload = { status: number | null; sentBytes: number };

/** POSTs `totalBytes` of zeros from one reused 64 kB buffer (never held whole), chunked or with Content-Length. */
function upload(target: string, options: { totalBytes: number; chunked: boolean; headers?: Record<string, string> }): Promise<Upload> {
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  return new Promise((resolve) => {
    let sentBytes = 0;
    let status: number | null = null;
    const req = http.request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: target,
      headers: { "content-type": "application/json", ...(options.chunked ? {} : { "content-length": options.totalBytes }), ...options.headers },
    });
    req.on("response", (res) => {
      status = res.statusCode ?? null;
      res.resume();
      res.on("end", () => {
        req.destroy();
        resolve({ status, sentBytes });
      });
    });
    req.on("error", () => resolve({ status, sentBytes }));
    const write = () => {
      while (sentBytes < options.totalBytes && !req.destroyed) {
        sentBytes += chunk.length;
        if (!req.write(chunk)) {
          req.once("drain", write);
          return;
        }
      }
      if (!req.destroyed) req.end();
    };
    write();
  });
}

describe("node-server: huge bodies", () => {
  const MB = 1024 * 1024;

  it("keeps RSS growth under 100 MB for 8 parallel 200 MB keyless POSTs, refusing each with 401 unread", async () => {
    const { organization } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    await raw(line("/api/v1/openapi.json")); // warm up the handler's modules
    const before = await ask<{ rss: number }>("reset");
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => upload(`/api/v1/agents/${agent.id}/schedule/sequences`, { totalBytes: 200 * MB, chunked: i % 2 === 1 })),
    );
    const { peakRss } = await ask<{ peakRss: number }>("peak");
    const growthMb = (peakRss - before.rss) / MB;
    console.log(`[node-server] RSS ${Math.round(before.rss / MB)} MB → peak ${Math.round(peakRss / MB)} MB (+${growthMb.toFixed(1)} MB) for 8 × 200 MB keyless POSTs; sent before the close: ${results.map((r) => Math.round(r.sentBytes / MB)).join(", ")} MB`);
    expect(results.map((r) => r.status)).toEqual(Array(8).fill(401));
    expect(growthMb).toBeLessThan(100);
    // The connections were closed, not drained: nobody got to send their 200 MB.
    for (const result of results) expect(result.sentBytes).toBeLessThan(200 * MB);
    expect((await raw(line("/api/v1/openapi.json"))).status).toBe(200);
  });

  it("cuts oversized bodies of a valid key off at the limit: 413 by Content-Length and while streaming", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const before = await ask<{ rss: number }>("reset");
    const results = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        upload(`/api/v1/agents/${agent.id}/schedule/sequence${i < 3 ? "s" : ""}`, { totalBytes: 100 * MB, chunked: i % 2 === 0, headers: { "x-api-key": apiKey } }),
      ),
    );
    const { peakRss } = await ask<{ peakRss: number }>("peak");
    expect(results.map((r) => r.status)).toEqual(Array(6).fill(413));
    expect((peakRss - before.rss) / MB).toBeLessThan(100);
  });

  it("refuses from the headers without asking for the body when the client sends Expect: 100-continue", async () => {
    const { organization, apiKey } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const target = `/api/v1/agents/${agent.id}/schedule/sequence`;
    const keyless = await raw(`POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 300000000\r\nExpect: 100-continue\r\n\r\n`);
    expect(keyless.status).toBe(401);
    expect(keyless.text).not.toContain("100 Continue");
    const tooLarge = await raw(
      `POST ${target} HTTP/1.1\r\nHost: localhost\r\nx-api-key: ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: 300000\r\nExpect: 100-continue\r\n\r\n`,
    );
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.text).not.toContain("100 Continue");
  });
});

describe("node-server: the edge of the routes Next.js serves", () => {
  const MB = 1024 * 1024;

  it("refuses anonymous 50 and 100 MB bodies to /api/trpc and the sign-in route with 413 from the headers, in each surface's shape, without reading them", async () => {
    const before = await ask<{ rss: number }>("reset");
    const started = Date.now();
    const results = await Promise.all([
      upload("/api/trpc/invitations.acceptWithNewAccount", { totalBytes: 50 * MB, chunked: false }),
      upload("/api/trpc/invitations.acceptWithNewAccount?batch=1", { totalBytes: 100 * MB, chunked: false }),
      upload("/api/auth/callback/credentials", { totalBytes: 50 * MB, chunked: false }),
      upload("/api/auth/callback/credentials", { totalBytes: 100 * MB, chunked: false }),
    ]);
    const seconds = (Date.now() - started) / 1000;
    const { peakRss } = await ask<{ peakRss: number }>("peak");
    expect(results.map((r) => r.status)).toEqual([413, 413, 413, 413]);
    expect(seconds).toBeLessThan(2);
    expect((peakRss - before.rss) / MB).toBeLessThan(20);
    for (const result of results) expect(result.sentBytes).toBeLessThan(50 * MB);

    const trpc = await raw(`POST /api/trpc/invitations.acceptWithNewAccount HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${5 * MB}\r\nConnection: close\r\n\r\n`);
    expect(trpc.status).toBe(413);
    expect(JSON.parse(trpc.body)).toEqual({
      error: {
        message: expect.stringContaining("2 MB"),
        code: -32013,
        data: { appCode: "PAYLOAD_TOO_LARGE", message: expect.stringContaining("2097152 bytes"), httpStatus: 413 },
      },
    });
    const auth = await raw(`POST /api/auth/callback/credentials HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${MB}\r\nConnection: close\r\n\r\n`);
    expect(auth.status).toBe(413);
    expect(JSON.parse(auth.body)).toEqual({
      error: "PAYLOAD_TOO_LARGE",
      message: expect.stringContaining("64 kB"),
      url: "http://localhost:3000/sign-in?error=RequestRefused",
    });
    // Voice callbacks and pages: the same 64 kB, `{error, message}`.
    for (const target of ["/api/voice/events", "/api/voice/twilio/status", "/sign-in", "/org_x/agents"]) {
      const res = await raw(`POST ${target} HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${MB}\r\nConnection: close\r\n\r\n`);
      expect(res.status, target).toBe(413);
      expect(JSON.parse(res.body), target).toEqual({ error: "PAYLOAD_TOO_LARGE", message: expect.any(String) });
    }
    // Within the limit, Next.js gets the request.
    const small = await raw(`POST /api/auth/callback/credentials HTTP/1.1\r\nHost: localhost\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(small.body).toBe("next /api/auth/callback/credentials");
  });

  it("answers provider events itself (Next.js never sees POST /api/voice/events), after the same edge checks", async () => {
    const post = (body: string, headers: string[] = []) =>
      raw(`POST /api/voice/events HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n${[...headers, `Content-Length: ${Buffer.byteLength(body)}`].join("\r\n")}\r\nConnection: close\r\n\r\n${body}`);
    const unsigned = await post(JSON.stringify({ type: "call.ringing", callId: "call_x" }));
    expect(unsigned.status).toBe(401);
    expect(JSON.parse(unsigned.body)).toEqual({ error: "UNAUTHORIZED", message: "Missing or invalid event signature." });
    // Signed with the child's secret (derived from its APP_SECRET, server/voice/signature.ts): the handler reads the body.
    const secret = createHmac("sha256", "node-server-test-app-secret-0123456789").update("voice-provider-events:v1").digest();
    const notJson = "{not json";
    const signed = await post(notJson, Object.entries(signVoiceEvent(notJson, { secret })).map(([name, value]) => `${name}: ${value}`));
    expect(signed.status).toBe(400);
    expect(JSON.parse(signed.body)).toEqual({ error: "INVALID_REQUEST_BODY", message: "The body is not valid JSON." });
    // Answered on Node's own response (no fetch Response): a provider's answer, JSON with its length, never cached.
    expect(signed.headers).toMatch(/\r\ncontent-type: application\/json\r\n/i);
    expect(signed.headers).toMatch(/\r\ncache-control: no-store, no-transform\r\n/i);
    expect(signed.headers).toMatch(new RegExp(`\r\ncontent-length: ${Buffer.byteLength(signed.body)}\r\n`, "i"));
    const notAnEvent = JSON.stringify({ type: "call.unknown", callId: "call_x" });
    const invalid = await post(notAnEvent, Object.entries(signVoiceEvent(notAnEvent, { secret })).map(([name, value]) => `${name}: ${value}`));
    expect(invalid.status).toBe(400);
    expect(JSON.parse(invalid.body)).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringMatching(/^Invalid event: /) });
    // Other methods on the path are still Next's (its 405), and the edge's limit still applies before anything is read.
    expect((await raw(line("/api/voice/events"))).body).toBe("next /api/voice/events");
  });

  it("refuses a chunked body (no Content-Length to check before reading) with 411", async () => {
    const results = await Promise.all([
      upload("/api/trpc/invitations.acceptWithNewAccount", { totalBytes: 50 * MB, chunked: true }),
      upload("/api/auth/callback/credentials", { totalBytes: 50 * MB, chunked: true }),
    ]);
    expect(results.map((r) => r.status)).toEqual([411, 411]);
    const res = await raw(`POST /api/trpc/a HTTP/1.1\r\nHost: localhost\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n2\r\n{}\r\n0\r\n\r\n`);
    expect(res.status).toBe(411);
    expect(JSON.parse(res.body).error.data).toMatchObject({ appCode: "LENGTH_REQUIRED", httpStatus: 411 });
  });

  it("answers a console batch of more than 50 calls with 400 naming the limit, from the URL alone", async () => {
    const paths = (n: number) => Array.from({ length: n }, () => "recordings.list").join(",");
    const res = await raw(line(`/api/trpc/${paths(501)}?batch=1&input={}`));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error).toMatchObject({
      code: -32600,
      data: { appCode: "INVALID_REQUEST", message: "A batched request may hold at most 50 procedure calls; this one holds 501. Split it into several requests." },
    });
    expect((await raw(line(`/api/trpc/${paths(51).replaceAll(",", "%2C")}?batch=1`))).status).toBe(400);
    expect((await raw(line(`/api/trpc/${paths(50)}?batch=1`))).body).toBe(`next /api/trpc/${paths(50)}?batch=1`);
  });

  it("hands malformed page paths to the console's 404 page and answers them 400 under /api", async () => {
    for (const target of ["/invite/%E0%A4%A", "/invite/%C0%AF", "/%E0%A4%A", "/calls/%00", "/%00", "/org_x/agents/%0a"]) {
      const res = await raw(line(target));
      expect(res.body, target).toBe("next /_not-found");
    }
    for (const target of ["/api/trpc/%E0%A4%A", "/api/auth/%00"]) {
      const res = await raw(line(target));
      expect(res.status, target).toBe(400);
    }
    expect(JSON.parse((await raw(line("/api/trpc/%E0%A4%A"))).body).error.data.appCode).toBe("INVALID_REQUEST");
    expect((await raw(line("/invite/abc%20def"))).body).toBe("next /invite/abc%20def");
  });
});

