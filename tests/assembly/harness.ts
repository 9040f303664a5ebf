/**
 * The production-assembly tier: the *built* app (`npm run build` first), started exactly as `npm start` starts it
 * (npm → package.json's script → node with tsx → scripts/start.ts → the HTTP server with Next attached, embedded
 * PostgreSQL in a fresh DATA_DIR, the embedded Inngest runner, the demo seed of a first start), on an ephemeral port,
 * and driven only over HTTP and WebSocket. Nothing here imports the app's server modules: what runs is what users run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import { Webhook } from "standardwebhooks";
import { startOpenAiSimulator, type OpenAiSimulator, type StartOpenAiSimulatorOptions } from "@/server/simulators/openai-realtime";
import { startTwilioSimulator, type TwilioSimulator } from "@/server/simulators/twilio";

export const ROOT = path.resolve(import.meta.dirname, "../..");
/** The checkout whose build is started: this one, or ASSEMBLY_APP_DIR (to show that a test fails on another commit). */
const APP_DIR = process.env.ASSEMBLY_APP_DIR ? path.resolve(process.env.ASSEMBLY_APP_DIR) : ROOT;

export type LogLine = { level: string | number; msg?: string; pid?: number; component?: string; [key: string]: unknown };

export type DemoUser = { email: string; password: string; role: string };
export type DemoOrganization = {
  key: "primary" | "secondary" | "large";
  orgId: string;
  name: string;
  apiKey: string;
  agents: Array<{ agentId: string; name: string; status: string; role: string; requiredInputVariables: string[] }>;
  fixtures: Record<string, unknown>;
};
export type Demo = { baseUrl: string; dashboard: { url: string; users: DemoUser[] }; organizations: DemoOrganization[] };

export type BuiltApp = {
  origin: string;
  port: number;
  dataDir: string;
  /** The Node process running scripts/start.ts (what `docker stop` signals: the image runs it as PID 1, no npm). */
  pid: number;
  demo: Demo;
  primary: DemoOrganization;
  /** Every line the app printed so far (JSON log lines parsed; other lines as `{ level: "text", msg }`). */
  logs(): LogLine[];
  /** An `/api/v1` request with the primary organization's key (JSON body when `body` is given). */
  api(pathAndQuery: string, init?: { method?: string; body?: unknown; key?: string | null; headers?: Record<string, string> }): Promise<{ status: number; body: any; headers: Headers }>;
  /**
   * Sends SIGTERM and waits for `npm start` to exit; the DATA_DIR is removed unless `keepData`. `target`: the `npm`
   * process (default: what a process manager running `npm start` signals) or the `app` process (`docker stop` on the
   * image, whose command is the app's `node` without npm).
   */
  stop(options?: { timeoutMs?: number; keepData?: boolean; target?: "npm" | "app" }): Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Whether `npm start` has exited. */
  exited(): boolean;
};

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export function assertBuilt(): void {
  if (!existsSync(path.join(APP_DIR, ".next/BUILD_ID"))) throw new Error("No production build: run `npm run build` before the assembly tests (npm test does).");
}

const running = new Set<ChildProcess>();
process.once("exit", () => {
  for (const child of running) if (child.pid) try { process.kill(-child.pid, "SIGKILL"); } catch { /* gone */ }
});

/**
 * Starts `npm start` on a fresh DATA_DIR and a free port with the given settings on top of the embedded defaults,
 * and waits until `/readyz` answers 200 (readiness: database, migrations, background runner).
 */
export async function startBuiltApp(options: { env?: Record<string, string>; port?: number; readyTimeoutMs?: number; dataDir?: string } = {}): Promise<BuiltApp> {
  assertBuilt();
  const port = options.port ?? (await freePort());
  // As root, the embedded PostgreSQL runs as the `postgres` user: the data directory's parents must be enterable.
  // A given dataDir is a restart: the same database, secrets and demo data.
  const dataDir = options.dataDir ?? mkdtempSync(path.join(os.tmpdir(), "ocs-assembly-"));
  chmodSync(dataDir, 0o755);
  const origin = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // Embedded everything on this DATA_DIR, whatever the calling shell has set.
    DATABASE_URL: "",
    DATA_DIR: dataDir,
    PORT: String(port),
    HOST: "127.0.0.1",
    NEXTAUTH_URL: origin,
    CHILI_PIPER_SIMULATOR_PORT: "",
    // Tests dial simulated US numbers at any hour.
    COMPLIANCE_QUIET_HOURS: "off",
    LOG_LEVEL: "info",
    LOG_FORMAT: "json",
    ...options.env,
  };
  // What the test runner set for itself is not the app's: npm start sets NODE_ENV=production.
  for (const name of ["NODE_OPTIONS", "NODE_ENV", "VITEST", "VITEST_POOL_ID", "VITEST_WORKER_ID", "TEST"]) Reflect.deleteProperty(env, name);
  const child: ChildProcess = spawn("npm", ["start"], { cwd: APP_DIR, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
  running.add(child);
  const lines: LogLine[] = [];
  let exitInfo: { code: number | null; signal: NodeJS.Signals | null } | null = null;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => {
      exitInfo = { code, signal };
      running.delete(child);
      resolve(exitInfo);
    }),
  );
  const collect = (stream: NodeJS.ReadableStream) => {
    let rest = "";
    stream.setEncoding("utf8");
    stream.on("data", (chunk: string) => {
      rest += chunk;
      const parts = rest.split("\n");
      rest = parts.pop()!;
      for (const part of parts) {
        if (!part.trim()) continue;
        try {
          lines.push(JSON.parse(part) as LogLine);
        } catch {
          lines.push({ level: "text", msg: part });
        }
      }
    });
  };
  collect(child.stdout!);
  collect(child.stderr!);

  const deadline = Date.now() + (options.readyTimeoutMs ?? 240_000);
  for (;;) {
    if (exitInfo) throw new Error(`npm start exited (${JSON.stringify(exitInfo)}) before it was ready:\n${tail(lines)}`);
    if (Date.now() > deadline) {
      process.kill(-child.pid!, "SIGKILL");
      throw new Error(`npm start was not ready within ${options.readyTimeoutMs ?? 240_000} ms:\n${tail(lines)}`);
    }
    const ready = await fetch(`${origin}/readyz`).then((res) => res.status === 200, () => false);
    if (ready) break;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  const pid = lines.find((line) => typeof line.pid === "number" && line.component === "start")?.pid ?? lines.find((line) => typeof line.pid === "number")?.pid;
  if (!pid) throw new Error(`no log line named the app's pid:\n${tail(lines)}`);
  const demo = JSON.parse(readFileSync(path.join(dataDir, "demo.json"), "utf8")) as Demo;
  const primary = demo.organizations.find((organization) => organization.key === "primary")!;

  return {
    origin,
    port,
    dataDir,
    pid,
    demo,
    primary,
    logs: () => lines,
    exited: () => exitInfo !== null,
    async api(pathAndQuery, init = {}) {
      const headers: Record<string, string> = { ...init.headers };
      const key = init.key === undefined ? primary.apiKey : init.key;
      if (key) headers["x-api-key"] = key;
      if (init.body !== undefined) headers["content-type"] = "application/json";
      const send = () => fetch(`${origin}/api/v1${pathAndQuery}`, { method: init.method ?? (init.body === undefined ? "GET" : "POST"), headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
      let response = await send();
      // As an integrator's client does (spec "Limits": 10 per rolling second per key): a 429 waits out Retry-After
      // and goes again, so a test's own pace never decides its result. A test of the limit itself uses fetch.
      for (let attempt = 0; response.status === 429 && attempt < 5; attempt++) {
        await response.arrayBuffer();
        const waitSeconds = Number(response.headers.get("retry-after")) || 1;
        await new Promise((resolve) => setTimeout(resolve, waitSeconds * 1000));
        response = await send();
      }
      const text = await response.text();
      let body: unknown = text;
      try {
        body = text ? JSON.parse(text) : null;
      } catch {
        /* not JSON */
      }
      return { status: response.status, body, headers: response.headers };
    },
    async stop({ timeoutMs = 60_000, keepData = false, target = "npm" } = {}) {
      if (exitInfo) return exitInfo;
      try {
        process.kill(target === "app" ? pid : child.pid!, "SIGTERM");
      } catch {
        /* already gone */
      }
      const timer = setTimeout(() => {
        try {
          process.kill(-child.pid!, "SIGKILL");
        } catch {
          /* gone */
        }
      }, timeoutMs);
      const result = await exited;
      clearTimeout(timer);
      try {
        process.kill(-child.pid!, "SIGKILL");
      } catch {
        /* the group is gone */
      }
      // The app's whole log, for a failure's post-mortem (CI keeps test-results/).
      const logDir = path.join(ROOT, "test-results/assembly");
      mkdirSync(logDir, { recursive: true });
      writeFileSync(path.join(logDir, `app-${port}-${pid}.log`), lines.map((line) => (line.level === "text" ? line.msg : JSON.stringify(line))).join("\n"));
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
      return result;
    },
  };
}

function tail(lines: LogLine[], count = 40): string {
  return lines
    .slice(-count)
    .map((line) => (line.level === "text" ? line.msg : JSON.stringify(line)))
    .join("\n");
}

/** Polls until `condition` returns a truthy value (which it returns), or fails with `label` and the last value. */
export async function waitFor<T>(
  condition: () => Promise<T> | T,
  options: { timeoutMs?: number; label: string; intervalMs?: number; explain?: () => unknown },
): Promise<NonNullable<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 60_000);
  let last: T | undefined;
  for (;;) {
    last = await condition();
    if (last) return last as NonNullable<T>;
    if (Date.now() > deadline) {
      const explained = options.explain ? `\n${JSON.stringify(await options.explain(), null, 1)?.slice(0, 20_000)}` : "";
      throw new Error(`timed out waiting for ${options.label}; last value: ${JSON.stringify(last)?.slice(0, 2000)}${explained}`);
    }
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 200));
  }
}

export type ConsoleSession = {
  cookie: string;
  /** A tRPC call on /api/trpc as the console makes it (the organization in `x-org-id`). */
  trpc(procedure: string, input?: unknown, options?: { method?: "GET" | "POST"; orgId?: string }): Promise<{ status: number; body: any }>;
};

/** Signs in through next-auth's credentials flow over HTTP (csrf, then the callback), as the sign-in form does. */
export async function signIn(app: Pick<BuiltApp, "origin">, user: { email: string; password: string }, orgId?: string): Promise<ConsoleSession> {
  const csrf = await fetch(`${app.origin}/api/auth/csrf`);
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const csrfCookies = cookiesOf(csrf.headers);
  const form = new URLSearchParams({ csrfToken, email: user.email, password: user.password, json: "true", callbackUrl: app.origin });
  const response = await fetch(`${app.origin}/api/auth/callback/credentials`, {
    method: "POST",
    redirect: "manual",
    headers: { "content-type": "application/x-www-form-urlencoded", cookie: csrfCookies },
    body: form.toString(),
  });
  const session = response.headers.getSetCookie().map((cookie) => cookie.split(";")[0]!).find((pair) => pair.startsWith("next-auth.session-token=") && pair.length > "next-auth.session-token=".length);
  if (!session) throw new Error(`sign-in of ${user.email} failed: ${response.status} ${await response.text()}`);
  const cookie = `${csrfCookies}; ${session}`;
  return {
    cookie,
    async trpc(procedure, input, { method, orgId: org } = {}) {
      const verb = method ?? "POST";
      const headers: Record<string, string> = { cookie, "content-type": "application/json" };
      const target = org ?? orgId;
      if (target) headers["x-org-id"] = target;
      const query = verb === "GET" && input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(input))}` : "";
      const res = await fetch(`${app.origin}/api/trpc/${procedure}${query}`, { method: verb, headers, body: verb === "POST" ? JSON.stringify(input ?? null) : undefined });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        /* not JSON */
      }
      return { status: res.status, body };
    },
  };
}

function cookiesOf(headers: Headers): string {
  return headers
    .getSetCookie()
    .map((cookie) => cookie.split(";")[0]!)
    .join("; ");
}

export type WebhookListener = {
  url: string;
  /** The call-result webhooks received so far, each verified with the endpoint's secret when it arrived. */
  payloads(): Array<Record<string, any>>;
  close(): Promise<void>;
};

/**
 * A webhook receiver on loopback, registered as an endpoint of the primary organization through the console (an admin's
 * session on /api/trpc), that verifies every delivery (Standard Webhooks: signature and timestamp) on arrival.
 */
export async function listenForWebhooks(app: BuiltApp): Promise<WebhookListener> {
  const received: Array<{ payload: Record<string, any> | null; error: string | null }> = [];
  let secret = "";
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string") headers[key] = value;
      try {
        received.push({ payload: new Webhook(secret).verify(Buffer.concat(chunks).toString("utf8"), headers) as Record<string, any>, error: null });
      } catch (error) {
        received.push({ payload: null, error: String(error) });
      }
      res.writeHead(200).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`;
  const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
  const session = await signIn(app, admin, app.primary.orgId);
  const created = await session.trpc("webhooks.createEndpoint", { url, description: "assembly test" });
  if (created.status !== 200) throw new Error(`creating the webhook endpoint failed: ${created.status} ${JSON.stringify(created.body)}`);
  secret = created.body.result.data.secret as string;
  return {
    url,
    payloads() {
      const failed = received.find((entry) => entry.error);
      if (failed) throw new Error(`a webhook failed verification: ${failed.error}`);
      return received.map((entry) => entry.payload!);
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The resident memory of a process, from /proc (bytes). */
export function residentBytes(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
}

/** The public origin the voice simulators are given; they reach the app through a "tunnel" to its local port. */
export const VOICE_PUBLIC_BASE_URL = "https://voice.example.test";

export type VoiceApp = { app: BuiltApp; twilio: TwilioSimulator; openai: OpenAiSimulator };

/**
 * The built app behind `npm start` with VOICE_ENGINE=twilio-realtime, as a new user going live configures it, against
 * the project's Twilio and OpenAI simulators in this process (the analysis model too): Twilio's callbacks and media
 * streams go to VOICE_PUBLIC_BASE_URL and are tunnelled to the app's port. `env` adds to (or overrides) the app's.
 */
export async function startVoiceApp(options: { twilioSpeed: number; openai?: StartOpenAiSimulatorOptions; env?: Record<string, string>; readyTimeoutMs?: number }): Promise<VoiceApp> {
  const openai = await startOpenAiSimulator(options.openai);
  const port = await freePort();
  const appOrigin = `http://127.0.0.1:${port}`;
  const tunnel = (url: string) => url.replace(/^https:\/\/voice\.example\.test/, appOrigin).replace(/^wss:\/\/voice\.example\.test/, appOrigin.replace(/^http/, "ws"));
  const twilio = await startTwilioSimulator({ speed: options.twilioSpeed, resolvePublicUrl: tunnel, log: () => {} });
  const app = await startBuiltApp({
    port,
    readyTimeoutMs: options.readyTimeoutMs,
    env: {
      VOICE_ENGINE: "twilio-realtime",
      TWILIO_ACCOUNT_SID: twilio.accountSid,
      TWILIO_AUTH_TOKEN: twilio.authToken,
      TWILIO_API_BASE_URL: twilio.origin,
      PUBLIC_BASE_URL: VOICE_PUBLIC_BASE_URL,
      APP_BASE_URL: VOICE_PUBLIC_BASE_URL,
      OPENAI_API_KEY: openai.apiKey,
      OPENAI_BASE_URL: openai.baseUrl,
      ANALYSIS_LLM_URL: openai.baseUrl,
      ANALYSIS_LLM_MODEL: "gpt-4.1-mini",
      ANALYSIS_LLM_API_KEY: openai.apiKey,
      ...options.env,
    },
  });
  return { app, twilio, openai };
}
