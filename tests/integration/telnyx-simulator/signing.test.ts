import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { newSigningKey } from "@/server/simulators/telnyx/signing";
import { CONNECTION_ID, PUBLIC_ORIGIN, startTelnyxStack, type TelnyxStack } from "./harness";

/**
 * Webhook signatures of the Telnyx simulator checked with the official SDK's verifier (`client.webhooks.unwrap`,
 * telnyx-node src/lib/webhooks.ts: Ed25519 over `${telnyx-timestamp}|${body}`, five minutes' tolerance): a delivered
 * webhook verifies with the simulator's public key; a tampered body, a changed timestamp, a stale delivery and a
 * signature made with another key do not.
 */
let stack: TelnyxStack;

beforeAll(async () => {
  stack = await startTelnyxStack({ speed: 8 });
});
afterAll(async () => {
  await stack?.stop();
});
afterEach(() => {
  vi.useRealTimers();
});

async function deliveredWebhook() {
  const { data } = await stack.client.calls.dial({ connection_id: CONNECTION_ID, from: "+12125550142", to: "+14155550103", webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice` });
  return stack.webhook("call.initiated", data!.call_control_id);
}

const verificationError = async (run: Promise<unknown>): Promise<string> => {
  const error = await run.then(
    () => null,
    (caught: unknown) => caught as Error,
  );
  expect(error?.name).toBe("TelnyxWebhookVerificationError");
  return error!.message;
};

describe("Telnyx simulator: webhook signatures", () => {
  it("a delivered webhook verifies with the simulator's public key (base64 of 32 raw bytes)", async () => {
    expect(Buffer.from(stack.telnyx.publicKey, "base64")).toHaveLength(32);
    const hook = await deliveredWebhook();
    expect(hook.headers["telnyx-signature-ed25519"]).toMatch(/^[A-Za-z0-9+/]{86}==$/);
    expect(Math.abs(Number(hook.headers["telnyx-timestamp"]) - Date.now() / 1000)).toBeLessThan(30);
    const event = (await stack.client.webhooks.unwrap(hook.body, { headers: hook.headers })) as { data?: { event_type?: string } };
    expect(event.data?.event_type).toBe("call.initiated");
  });

  it("a tampered body or a changed timestamp fails verification", async () => {
    const hook = await deliveredWebhook();
    const tampered = hook.body.replace('"to":"+14155550103"', '"to":"+14155550109"');
    expect(tampered).not.toBe(hook.body);
    expect(await verificationError(stack.client.webhooks.unwrap(tampered, { headers: hook.headers }))).toMatch(/signature does not match/);
    const shifted = { ...hook.headers, "telnyx-timestamp": String(Number(hook.headers["telnyx-timestamp"]) - 1) };
    expect(await verificationError(stack.client.webhooks.unwrap(hook.body, { headers: shifted }))).toMatch(/signature does not match/);
  });

  it("the same delivery replayed six minutes later is stale", async () => {
    const hook = await deliveredWebhook();
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.now() + 6 * 60_000);
    expect(await verificationError(stack.client.webhooks.unwrap(hook.body, { headers: hook.headers }))).toMatch(/too old or too new/);
  });

  it("a webhook signed with another key is refused, and ours fails against another public key", async () => {
    const hook = await deliveredWebhook();
    const forger = newSigningKey();
    expect(await verificationError(stack.client.webhooks.unwrap(hook.body, { headers: { ...hook.headers, ...forger.headersFor(hook.body) } }))).toMatch(/signature does not match/);
    expect(await verificationError(stack.client.webhooks.unwrap(hook.body, { headers: hook.headers, key: forger.publicKey }))).toMatch(/signature does not match/);
    // The forger's own key verifies its own signature: the verifier is not refusing everything.
    await stack.client.webhooks.unwrap(hook.body, { headers: { ...hook.headers, ...forger.headersFor(hook.body) }, key: forger.publicKey });
  });
});
