/**
 * Process-wide state on the built app behind `npm start` (server/runtime/process-singleton.ts): the custom server
 * (unbundled, under tsx) serves /metrics and the /api/v1 fast path, while instrumentation, the runner's functions, the
 * voice entry point and the console pages run in Next.js's bundles. Every module copy must reach one registry, so each
 * singleton is made once per process — and /metrics (the custom server's copy) sees the ones the bundles made.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PROCESS_SINGLETON_KEYS } from "@/server/runtime/process-singleton";
import { signIn, startBuiltApp, waitFor, type BuiltApp } from "./harness";

let app: BuiltApp;

beforeAll(async () => {
  // The first start seeds the demo (its calls run before the server listens): slow on a loaded machine.
  app = await startBuiltApp({ readyTimeoutMs: 480_000 });
}, 540_000);

afterAll(async () => {
  await app?.stop();
});

async function creations(): Promise<Map<string, number>> {
  const text = await (await fetch(`${app.origin}/metrics`)).text();
  return new Map([...text.matchAll(/^app_process_singleton_creations\{key="([A-Za-z]+)"\} ([0-9.e+-]+)$/gm)].map((match) => [match[1]!, Number(match[2])]));
}

/**
 * Made on the way of what the test does, several of them first in a bundle: the embedded services and the runner's
 * transport (instrumentation), the voice engine and its events secret, the analyser (the runner's steps), the per-key
 * limiter and the key cache (the /api/v1 fast path), the database, the logger and the metrics (everywhere).
 */
const EXERCISED = [
  "metrics",
  "logger",
  "lifecycle",
  "embeddedServices",
  "readinessSql",
  "appDb",
  "inngestEmbedded",
  "identityRateLimitStore",
  "apiKeyVerification",
  "voiceEngine",
  "voiceEventsSecret",
  "callAnalyzer",
  "stageCpu",
] as const;

describe("process-wide singletons on the built app (npm start)", () => {
  it("are each made once per process across an API call, its call's voice events and analysis, and a console page", async () => {
    // An API call whose call is dialled by the runner, reported by the voice simulator's events and analysed.
    const agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
    const accepted = await app.api(`/agents/${agentId}/schedule/sequences`, {
      body: { timezone: "America/New_York", contacts: [{ name: "Made Once", phoneNumber: "+12125550492", company_name: "Acme" }] },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    // A console page, rendered by Next's bundle for a signed-in admin.
    const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
    const session = await signIn(app, admin, app.primary.orgId);
    const page = await fetch(`${app.origin}/${app.primary.orgId}/agents`, { headers: { cookie: session.cookie }, redirect: "manual" });
    expect(page.status).toBe(200);
    await page.text();

    await waitFor(async () => {
      const made = await creations();
      return EXERCISED.every((key) => made.has(key));
    }, { timeoutMs: 120_000, label: "the exercised singletons on /metrics", explain: () => creations().then((made) => Object.fromEntries(made)) });

    const made = await creations();
    expect([...made.keys()].filter((key) => !(PROCESS_SINGLETON_KEYS as readonly string[]).includes(key))).toEqual([]);
    expect(Object.fromEntries(made)).toEqual(Object.fromEntries([...made.keys()].map((key) => [key, 1])));
  }, 180_000);
});
