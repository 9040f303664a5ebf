/**
 * Bulk enrollment in the built app behind `npm start` (embedded defaults: the voice simulator): the 202, then the
 * background materialization (an Inngest function in Next's bundle) and the sequence runner, seen only through the
 * signed call-result webhooks. Chained contacts (`groupByField`) went through a transaction whose class check failed
 * in the bundle (2026-11-27): every accepted contact was lost.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { listenForWebhooks, startBuiltApp, waitFor, type BuiltApp, type WebhookListener } from "./harness";

let app: BuiltApp;
let webhooks: WebhookListener;
let agentId: string;

beforeAll(async () => {
  app = await startBuiltApp();
  webhooks = await listenForWebhooks(app);
  agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await webhooks?.close();
});

function webhooksTo(phoneNumber: string) {
  return webhooks.payloads().filter((payload) => payload.phoneNumber === phoneNumber);
}

describe("bulk enrollment on the built app (npm start)", () => {
  it("groupByField with titleCaseFields: the chain advances end to end, one contact at a time", async () => {
    // Digits: 1 → Goal Not Completed (hands over), 4 → No Conversation (hands over), 0 → Goal Completed (ends the chain).
    const chain = ["+12125550431", "+12125550434", "+12125550430"];
    const accepted = await app.api(`/agents/${agentId}/schedule/sequences`, {
      body: {
        groupByField: "account",
        titleCaseFields: ["name", "company_name"],
        timezone: "America/New_York",
        contacts: [
          { name: "grace HOPPER", phoneNumber: chain[0], company_name: "navy labs", account: "ACC-CHAIN" },
          { name: "alan turing", phoneNumber: chain[1], company_name: "bletchley park", account: "ACC-CHAIN" },
          { name: "joan clarke", phoneNumber: chain[2], company_name: "hut eight", account: "ACC-CHAIN" },
        ],
      },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body).toMatchObject({ total: 3, accepted: 3, rejected: [] });

    await waitFor(() => chain.every((number) => webhooksTo(number).length >= 1), {
      timeoutMs: 150_000,
      label: "a call-result webhook for each chained contact",
      explain: () => ({
        received: webhooks.payloads().map((payload) => [payload.phoneNumber, payload.callResult?.resultType]),
        errors: app.logs().filter((line) => line.level === "error" || line.level === "warn").slice(-10),
      }),
    });
    const results = chain.map((number) => webhooksTo(number));
    expect(results.map((list) => list.length)).toEqual([1, 1, 1]);
    expect(results.map((list) => list[0]!.callResult.resultType)).toEqual(["Goal Not Completed", "No Conversation", "Goal Completed"]);
    // One at a time: a waiting contact's call is created when the previous contact's call has ended.
    const [first, second, third] = results.map((list) => list[0]!);
    expect(Date.parse(second!.createdAt)).toBeGreaterThan(Date.parse(first!.createdAt));
    expect(Date.parse(third!.createdAt)).toBeGreaterThan(Date.parse(second!.createdAt));
    // Title case applied to the name and the named variable.
    expect(results.map((list) => list[0]!.name)).toEqual(["Grace Hopper", "Alan Turing", "Joan Clarke"]);
    expect(first!.customInputVariables).toMatchObject({ company_name: "Navy Labs", account: "ACC-CHAIN" });
  });

  it("allowDuplicates: every occurrence of a repeated number is called", async () => {
    const number = "+13035550488";
    const accepted = await app.api(`/agents/${agentId}/schedule/sequences`, {
      body: {
        allowDuplicates: true,
        timezone: "America/Denver",
        contacts: [
          { name: "Ada One", phoneNumber: number, company_name: "Acme" },
          { name: "Ada Two", phoneNumber: number, company_name: "Acme" },
        ],
      },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body).toMatchObject({ accepted: 2 });
    await waitFor(() => webhooksTo(number).length >= 2, { timeoutMs: 120_000, label: "both duplicates called" });
    expect(new Set(webhooksTo(number).map((payload) => payload.sequence.sequenceId)).size).toBe(2);
  });
});
