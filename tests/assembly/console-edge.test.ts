import http from "node:http";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { residentBytes, startBuiltApp, type BuiltApp } from "./harness";

/**
 * Issue 29 against the built app as `npm start` runs it, over HTTP only: the console's endpoint and pages held to the
 * public API's standard — body and batch limits, rate limits, no open redirect, no 500 on bad input.
 */
let app: BuiltApp;
const MB = 1024 * 1024;

beforeAll(async () => {
  app = await startBuiltApp();
}, 300_000);

afterAll(async () => {
  await app?.stop();
}, 60_000);

/** POSTs `totalBytes` from one reused buffer with a Content-Length; resolves with the status and when it came. */
function upload(pathname: string, totalBytes: number): Promise<{ status: number | null; ms: number }> {
  const started = Date.now();
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  const { port } = new URL(app.origin);
  return new Promise((resolve) => {
    let status: number | null = null;
    let sent = 0;
    const req = http.request({ host: "127.0.0.1", port, method: "POST", path: pathname, headers: { "content-type": "application/json", "content-length": totalBytes } });
    req.on("response", (res) => {
      status = res.statusCode ?? null;
      const ms = Date.now() - started;
      res.resume();
      res.on("end", () => {
        req.destroy();
        resolve({ status, ms });
      });
    });
    req.on("error", () => resolve({ status, ms: Date.now() - started }));
    const write = () => {
      while (sent < totalBytes && !req.destroyed) {
        sent += chunk.length;
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

/** A request exactly as written (targets fetch would normalize), answered until the server closes. */
function raw(target: string, headers: string[] = []): Promise<{ status: number; head: string }> {
  const { port } = new URL(app.origin);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), "127.0.0.1");
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (chunk) => (text += chunk));
    socket.on("error", reject);
    socket.on("close", () => resolve({ status: Number(text.split(" ")[1]), head: text.split("\r\n\r\n")[0]! }));
    socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${headers.map((h) => `${h}\r\n`).join("")}Connection: close\r\n\r\n`);
  });
}

/** Signs in through next-auth's credentials callback as the sign-in form does; the session cookie. */
async function signIn(role: "admin" | "member"): Promise<string> {
  const user = app.demo.dashboard.users.find((candidate) => candidate.role === role)!;
  const csrf = await fetch(`${app.origin}/api/auth/csrf`);
  const csrfCookie = csrf.headers.getSetCookie().map((cookie) => cookie.split(";")[0]).join("; ");
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch(`${app.origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookie },
    body: new URLSearchParams({ csrfToken, email: user.email, password: user.password, json: "true", callbackUrl: app.origin }),
  });
  const session = res.headers.getSetCookie().find((cookie) => cookie.includes("next-auth.session-token="));
  expect(session, "signed in").toBeDefined();
  return session!.split(";")[0]!;
}

const trpcGet = (procedure: string, input: unknown, cookie: string, orgId: string) =>
  fetch(`${app.origin}/api/trpc/${procedure}${input === undefined ? "" : `?input=${encodeURIComponent(JSON.stringify(input))}`}`, { headers: { cookie, "x-org-id": orgId } });

describe("request bodies on the console's endpoint and the sign-in route", () => {
  it("answers anonymous 50 MB and 100 MB bodies with 413 within 1 s, the app's memory growing by less than 20 MB", async () => {
    // Warm up the routes first, so their modules' first load is not counted.
    await fetch(`${app.origin}/api/trpc/invitations.lookup?input=${encodeURIComponent(JSON.stringify({ token: "x".repeat(43) }))}`);
    await fetch(`${app.origin}/api/auth/csrf`);
    const before = residentBytes(app.pid);
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, residentBytes(app.pid))), 10);
    const results = await Promise.all([
      upload("/api/trpc/invitations.acceptWithNewAccount", 50 * MB),
      upload("/api/trpc/invitations.acceptWithNewAccount", 100 * MB),
      upload("/api/auth/callback/credentials", 50 * MB),
      upload("/api/auth/callback/credentials", 100 * MB),
    ]);
    await new Promise((resolve) => setTimeout(resolve, 200));
    clearInterval(sampler);
    console.log(`[console-edge] 413s after ${results.map((r) => r.ms).join(", ")} ms; RSS ${Math.round(before / MB)} → peak ${Math.round(peak / MB)} MB`);
    expect(results.map((r) => r.status)).toEqual([413, 413, 413, 413]);
    for (const result of results) expect(result.ms).toBeLessThan(1000);
    expect((peak - before) / MB).toBeLessThan(20);
    // The server is still answering promptly.
    expect((await fetch(`${app.origin}/healthz`)).status).toBe(200);
  });

  it("names the limit in tRPC's error shape (a member's 5 MB mutation included)", async () => {
    const cookie = await signIn("member");
    const res = await fetch(`${app.origin}/api/trpc/suppressions.add`, {
      method: "POST",
      headers: { cookie, "content-type": "application/json", "x-org-id": app.demo.organizations[0]!.orgId },
      body: JSON.stringify({ phoneNumbers: ["x".repeat(5 * MB)] }),
    });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { data: { appCode: string; message: string } } }).error.data).toMatchObject({
      appCode: "PAYLOAD_TOO_LARGE",
      message: expect.stringContaining("2 MB"),
    });
  });
});

describe("batches and rate limits on /api/trpc", () => {
  it("answers a 501-call batch with a 400 naming the limit", async () => {
    const cookie = await signIn("admin");
    const orgId = app.demo.organizations[0]!.orgId;
    const paths = Array.from({ length: 501 }, () => "recordings.list").join(",");
    const res = await fetch(`${app.origin}/api/trpc/${paths}?batch=1&input={}`, { headers: { cookie, "x-org-id": orgId } });
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { data: { message: string } } };
    expect(body.error.data.message).toContain("at most 50 procedure calls; this one holds 501");
  });

  it("answers the 11th request within a second from one session with 429 and Retry-After", async () => {
    const cookie = await signIn("member");
    const orgId = app.demo.organizations[0]!.orgId;
    // Let the sign-in's own requests leave the window.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const started = Date.now();
    const responses = [];
    for (let i = 0; i < 11; i++) responses.push(await trpcGet("organizations.current", undefined, cookie, orgId));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(responses.map((res) => res.status)).toEqual([...Array(10).fill(200), 429]);
    expect(Number(responses[10]!.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(((await responses[10]!.json()) as { error: { data: { appCode: string } } }).error.data.appCode).toBe("RATE_LIMITED");
  });
});

describe("sign-in redirect", () => {
  const attempts = ["/\\evil.example", "/\t/evil.example", "/\\/evil.example", "//evil.example", "https://evil.example/", "/.//evil.example"];

  it("signed in: every open-redirect form lands on the default page", async () => {
    const cookie = await signIn("admin");
    for (const callbackUrl of attempts) {
      const res = await fetch(`${app.origin}/sign-in?callbackUrl=${encodeURIComponent(callbackUrl)}`, { headers: { cookie }, redirect: "manual" });
      expect([303, 307, 308], JSON.stringify(callbackUrl)).toContain(res.status);
      expect(res.headers.get("location"), JSON.stringify(callbackUrl)).toBe("/");
    }
    const fine = await fetch(`${app.origin}/sign-in?callbackUrl=${encodeURIComponent("/somewhere?x=1")}`, { headers: { cookie }, redirect: "manual" });
    expect(fine.headers.get("location")).toBe("/somewhere?x=1");
  });

  it("signed out: the form is told to go to the default page", async () => {
    for (const callbackUrl of attempts) {
      const html = await (await fetch(`${app.origin}/sign-in?callbackUrl=${encodeURIComponent(callbackUrl)}`)).text();
      // The form's prop, in the page's flight data: `"callbackUrl":"/"`.
      expect(html, JSON.stringify(callbackUrl)).toMatch(/\\"callbackUrl\\":\\"\/\\"/);
    }
  });
});

describe("bad input is a 4xx, never a 500", () => {
  it("answers the extreme dates of consent.export and meetings.list with 400", async () => {
    const cookie = await signIn("admin");
    const orgId = app.demo.organizations[0]!.orgId;
    const inputs: Array<[string, unknown]> = [
      ["consent.export", { from: "0000-01-01T00:00:00Z", to: "0000-06-01T00:00:00Z", after: null }],
      ["consent.export", { from: "0001-01-01T00:00:00+14:00", to: "0001-06-01T00:00:00Z", after: null }],
      ["consent.export", { from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z", after: { enrolledAt: "0000-01-01T00:00:00Z", sequenceId: "x" } }],
      ["meetings.list", { from: "0000-01-01T00:00:00Z" }],
    ];
    for (const [procedure, input] of inputs) {
      const res = await trpcGet(procedure, input, cookie, orgId);
      expect(res.status, `${procedure} ${JSON.stringify(input)}`).toBe(400);
      await new Promise((resolve) => setTimeout(resolve, 120));
    }
  });

  it("answers malformed page URLs with the 404 page or a 4xx", async () => {
    const targets = [
      "/invite/%E0%A4%A",
      "/invite/%C0%AF",
      "/%E0%A4%A",
      "/calls/%00",
      "/%00",
      "/sign-in?callbackUrl=/%0d%0a/evil.example",
      "/sign-in?callbackUrl=/%00",
      "/sign-in?callbackUrl=/%E2%80%A8",
      "/sign-in?callbackUrl=%E0%A4%A",
    ];
    const cookie = await signIn("admin");
    for (const target of targets) {
      for (const headers of [[], [`Cookie: ${cookie}`]]) {
        const res = await raw(target, headers);
        expect(res.status, `${target} ${headers.length ? "signed in" : "signed out"}`).toBeGreaterThanOrEqual(200);
        expect(res.status, `${target} ${headers.length ? "signed in" : "signed out"}`).toBeLessThan(500);
        if (target.startsWith("/sign-in") && headers.length) expect(res.head, target).toMatch(/\r\nlocation: \/\r\n/i);
      }
    }
    expect((await raw("/invite/%E0%A4%A")).status).toBe(404);
  });
});
