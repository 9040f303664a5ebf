/**
 * CPU by pipeline stage (STAGE_CPU_ACCOUNTING, issue 38) in the built app behind `npm start`: the custom server
 * (unbundled) enables it and serves /metrics, the runner's work runs in Next.js's bundles, and both count into one
 * state (server/runtime/process-singleton.ts) — a copy per module graph would leave the runner's stages at zero.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBuiltApp, waitFor, type BuiltApp } from "./harness";

let app: BuiltApp;

beforeAll(async () => {
  app = await startBuiltApp({ env: { STAGE_CPU_ACCOUNTING: "1" } });
}, 300_000);

afterAll(async () => {
  await app?.stop();
});

async function stageSeconds(): Promise<Map<string, number>> {
  const text = await (await fetch(`${app.origin}/metrics`)).text();
  return new Map([...text.matchAll(/^app_stage_cpu_seconds_total\{stage="([a-z-]+)"\} ([0-9.e+-]+)$/gm)].map((match) => [match[1]!, Number(match[2])]));
}

describe("CPU by stage on the built app (npm start)", () => {
  it("counts a bulk enrollment, its dialing and its calls' events under their stages, on /metrics", async () => {
    const agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
    const accepted = await app.api(`/agents/${agentId}/schedule/sequences`, {
      body: { timezone: "America/New_York", contacts: [{ name: "Stage Counted", phoneNumber: "+12125550491", company_name: "Acme" }] },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    await waitFor(async () => {
      const seconds = await stageSeconds();
      return ["enrollment", "dispatch", "voice-events", "analysis"].every((stage) => (seconds.get(stage) ?? 0) > 0);
    }, { timeoutMs: 120_000, label: "CPU counted for enrollment, dispatch, voice events and analysis", explain: () => stageSeconds().then((seconds) => Object.fromEntries(seconds)) });
  }, 180_000);
});
