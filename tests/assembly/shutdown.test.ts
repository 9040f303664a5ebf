/**
 * A SIGTERM to the built app (as `docker stop` or a process manager sends it) while a call is in the air, then a
 * restart on the same data: the call ends exactly once — one call-result webhook, one charge.
 */
import { afterAll, describe, expect, it } from "vitest";
import { draftFromView } from "@/app/(dashboard)/[orgId]/agents/_components/agent-draft";
import { listenForWebhooks, signIn, startBuiltApp, waitFor, type BuiltApp, type WebhookListener } from "./harness";

// A 2-minute simulated call lasts ~12 s: long enough to be in the air when the signal comes.
const ENV = { VOICE_SIMULATOR_MS_PER_SECOND: "100" };
let app: BuiltApp | undefined;
let webhooks: WebhookListener | undefined;

afterAll(async () => {
  await app?.stop();
  await webhooks?.close();
});

describe("SIGTERM during a live call (npm start)", () => {
  it("the call still ends exactly once: one webhook, one charge", async () => {
    app = await startBuiltApp({ env: ENV });
    webhooks = await listenForWebhooks(app);
    // An agent of its own (a copy of the demo's link agent made in the console): its ledger holds only this call.
    const admin = await signIn(app, app.demo.dashboard.users.find((user) => user.role === "admin")!, app.primary.orgId);
    const source = await admin.trpc("agents.getConfig", { agentId: app.primary.agents.find((agent) => agent.role === "link")!.agentId }, { method: "GET" });
    const draft = draftFromView(source.body.result.data);
    const withoutIds = <T extends { id?: string }>(items: T[]) => items.map(({ id: _id, ...rest }) => rest);
    const created = await admin.trpc("agents.create", {
      ...draft,
      name: "Shutdown Test Agent",
      inputVariables: withoutIds(draft.inputVariables),
      extractedVariables: withoutIds(draft.extractedVariables),
      outcomes: withoutIds(draft.outcomes),
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const agentId = (created.body.result.data.agentId ?? created.body.result.data.id) as string;
    const enrolled = await app.api(`/agents/${agentId}/schedule/sequence`, {
      body: { name: "Live Call", phoneNumber: "+12125550571", timezone: "America/New_York", company_name: "Acme" },
    });
    expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
    const sequenceId = enrolled.body.sequence.sequenceId as string;
    await waitFor(
      async () => {
        const metadata = await app!.api(`/conversations/metadata/${sequenceId}`);
        return metadata.body?.metadata?.[0]?.callResult?.resultType === "Calling";
      },
      { timeoutMs: 30_000, label: "the call to be in the air" },
    );
    await new Promise((resolve) => setTimeout(resolve, 1500));

    const dataDir = app.dataDir;
    const port = app.port;
    const stopping = app;
    await stopping.stop({ keepData: true });
    // The app's own account of its shutdown (npm's exit code is the app's: tests/assembly/npm-start-signals.test.ts).
    const summary = stopping.logs().find((line) => line.component === "shutdown" && (line.msg === "shut down" || line.msg === "shut down with parts cut short"));
    expect(summary, "the shutdown's summary line").toMatchObject({ msg: "shut down", timedOut: [], failed: [] });
    expect(stopping.logs().some((line) => line.msg === "calls in the air were ended for the shutdown" && line.ended === 1)).toBe(true);
    app = await startBuiltApp({ env: ENV, dataDir, port });

    const ended = await waitFor(() => webhooks!.payloads().filter((payload) => payload.sequence?.sequenceId === sequenceId).length > 0, {
      timeoutMs: 120_000,
      label: "the call-result webhook",
      explain: async () => (await app!.api(`/conversations/metadata/${sequenceId}`)).body,
    });
    expect(ended).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 5000));
    const results = webhooks.payloads().filter((payload) => payload.sequence?.sequenceId === sequenceId);
    expect(results, "one webhook").toHaveLength(1);
    expect(results[0]!.callResult.resultType).not.toBe("Failed");
    const usage = (await app.api("/credits/usage")).body as { agents: Array<{ agentId: string; spentCredits: number; transactionCount: number }> };
    const charges = usage.agents.find((agent) => agent.agentId === agentId);
    expect(charges, JSON.stringify(usage)).toMatchObject({ transactionCount: 1, spentCredits: Math.ceil(results[0]!.duration / 60) });
  });
});
