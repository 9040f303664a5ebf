import { createHmac } from "node:crypto";
import { Inngest } from "inngest";
import { describe, expect, it } from "vitest";
import * as route from "@/app/api/inngest/route";
import { INNGEST_APP_ID, inngest, inngestMode, resolveInngestMode } from "@/inngest/client";
import { EMBEDDED_TOKEN_HEADER } from "@/inngest/embedded";
import { embeddedRunnerToken } from "@/inngest/embedded/transport";
import { createInngestHandler } from "@/inngest/serve";

describe("Inngest mode resolution", () => {
  it("is embedded without settings, dev with INNGEST_DEV, cloud with keys or a base URL", () => {
    expect(resolveInngestMode({})).toBe("embedded");
    expect(resolveInngestMode({ INNGEST_DEV: "1" })).toBe("dev");
    expect(resolveInngestMode({ INNGEST_DEV: "http://localhost:8288" })).toBe("dev");
    expect(resolveInngestMode({ INNGEST_DEV: "0", INNGEST_SIGNING_KEY: "signkey-prod-00" })).toBe("cloud");
    expect(resolveInngestMode({ INNGEST_EVENT_KEY: "key" })).toBe("cloud");
    expect(resolveInngestMode({ INNGEST_SIGNING_KEY: "signkey-prod-00" })).toBe("cloud");
    expect(resolveInngestMode({ INNGEST_BASE_URL: "http://inngest.internal:8288" })).toBe("cloud");
    expect(inngestMode).toBe("embedded");
  });
});

describe("serve route in embedded mode", () => {
  it("answers 404 to every request from outside the process", async () => {
    for (const method of ["GET", "POST", "PUT"] as const) {
      const request = new Request("http://localhost:3000/api/inngest?fnId=outbound-calling-x&stepId=step", {
        method,
        headers: { "content-type": "application/json", [EMBEDDED_TOKEN_HEADER]: "guessed" },
        body: method === "GET" ? undefined : JSON.stringify({ event: {}, steps: {}, ctx: {} }),
      });
      const response = await route[method](request);
      expect(response.status, method).toBe(404);
      expect(await response.json()).toEqual({ error: "NOT_FOUND", message: "Not found." });
    }
  });

  it("serves the runner, which carries the process secret", async () => {
    const response = await route.PUT(
      new Request("http://localhost:3000/api/inngest", {
        method: "PUT",
        headers: { "content-type": "application/json", "x-inngest-sync-kind": "in_band", [EMBEDDED_TOKEN_HEADER]: embeddedRunnerToken() },
        body: JSON.stringify({ url: "http://localhost:3000/api/inngest" }),
      }),
    );
    expect(response.status).toBe(200);
    expect((await response.json()).app_id).toBe(INNGEST_APP_ID);
  });
});

describe("serve route in cloud mode", () => {
  const signingKey = `signkey-test-${"ab12".repeat(16)}`;
  const client = new Inngest({ id: INNGEST_APP_ID, isDev: false, signingKey });
  const fn = client.createFunction({ id: "cloud-hello", triggers: [{ event: "test/cloud" }] }, async () => ({ hello: "world" }));
  const handler = createInngestHandler({ client, functions: [fn], mode: "cloud" });
  // Keys in sorted order at every level, so JSON.stringify gives the canonical JSON the SDK verifies.
  const body = {
    ctx: { attempt: 0, disable_immediate_execution: false, max_attempts: 1, run_id: "01JRUN", stack: { current: 0, stack: [] }, use_api: false },
    event: { data: {}, name: "test/cloud", ts: 1 },
    events: [{ data: {}, name: "test/cloud", ts: 1 }],
    steps: {},
    version: -1,
  };
  const url = "http://localhost:3000/api/inngest?fnId=outbound-calling-cloud-hello&stepId=step";
  const sign = (payload: string, key: string) => {
    const ts = Math.round(Date.now() / 1000).toString();
    const mac = createHmac("sha256", key.replace(/^signkey-\w+-/, "")).update(payload + ts).digest("hex");
    return `t=${ts}&s=${mac}`;
  };
  const post = (headers: Record<string, string>) =>
    handler(new Request(url, { method: "POST", headers: { "content-type": "application/json", ...headers }, body: JSON.stringify(body) }));

  it("refuses unsigned and wrongly signed requests when a signing key is set", async () => {
    expect((await post({})).status).toBe(401);
    expect((await post({ "x-inngest-signature": sign(JSON.stringify(body), `signkey-test-${"cd34".repeat(16)}`) })).status).toBe(401);
    const introspection = await handler(new Request("http://localhost:3000/api/inngest", { method: "GET" }));
    expect(introspection.status).toBe(401);
    expect(inngest.mode).toBe("dev"); // the app's embedded client is untouched
  });

  it("runs a correctly signed request", async () => {
    const response = await post({ "x-inngest-signature": sign(JSON.stringify(body), signingKey) });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ hello: "world" });
  });
});
