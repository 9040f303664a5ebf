import { eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { webhookEndpoints } from "@/db/schema";
import {
  assertHostAllowed,
  defaultAddressPolicy,
  LOOPBACK_ADDRESS_POLICY,
  PRODUCTION_ADDRESS_POLICY,
} from "@/server/services/webhooks/address-guard";
import { attemptWebhookDelivery, createCallDeliveries, getWebhookDelivery } from "@/server/services/webhooks/deliveries";
import { createWebhookEndpoint, updateWebhookEndpoint } from "@/server/services/webhooks/manage-endpoints";
import { postWebhook } from "@/server/services/webhooks/http-sender";
import { useTestDb } from "../../helpers/db";
import { createAnalyzedCall, createLoopbackEndpoint, startReceiver, useTestEncryptionKey } from "./fixtures";

useTestEncryptionKey();
const db = useTestDb();

const savedEnv = { EMBEDDED_MODE: process.env.EMBEDDED_MODE, WEBHOOK_ALLOW_PRIVATE_NETWORKS: process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS };
afterEach(() => {
  for (const [key, value] of Object.entries(savedEnv)) {
    if (value === undefined) delete process.env[key];
    else process.env[key] = value;
  }
});

const refusedInProduction: Array<[string, RegExp]> = [
  ["http://127.0.0.1/hook", /loopback/],
  ["http://127.8.9.10:8080/hook", /loopback/],
  ["http://10.0.0.5/hook", /private-network/],
  ["http://10.255.255.254/hook", /private-network/],
  ["http://172.16.3.4/hook", /private-network/],
  ["http://192.168.1.20/hook", /private-network/],
  ["http://169.254.169.254/latest/meta-data/", /link-local/],
  ["http://100.100.100.200/latest/meta-data/", /carrier-grade NAT/],
  ["http://0.0.0.0:3000/", /unspecified/],
  ["http://[::1]:3000/hook", /loopback/],
  ["http://[::ffff:127.0.0.1]/hook", /loopback/],
  ["http://[::ffff:a9fe:a9fe]/hook", /link-local/],
  ["http://[fd00:ec2::254]/hook", /unique local/],
  ["http://[fe80::1]/hook", /link-local/],
  ["http://localhost:3000/hook", /localhost resolves to .* loopback/],
];

describe("SSRF guard when an endpoint is saved (production mode)", () => {
  it.each(refusedInProduction)("refuses %s", async (url, reason) => {
    const { organizationId } = await createAnalyzedCall(db);
    const attempt = createWebhookEndpoint(db, { organizationId, url, policy: PRODUCTION_ADDRESS_POLICY });
    await expect(attempt).rejects.toMatchObject({ code: "INVALID_REQUEST" });
    await expect(attempt).rejects.toThrow(reason);
  });

  it("accepts a public address, and refuses a loopback URL on update too", async () => {
    const { organizationId } = await createAnalyzedCall(db);
    const { endpoint } = await createWebhookEndpoint(db, { organizationId, url: "https://93.184.215.14/hooks", policy: PRODUCTION_ADDRESS_POLICY });
    expect(endpoint.url).toBe("https://93.184.215.14/hooks");
    await expect(
      updateWebhookEndpoint(db, { organizationId, endpointId: endpoint.endpointId, url: "http://127.0.0.1/", policy: PRODUCTION_ADDRESS_POLICY }),
    ).rejects.toThrow(/loopback/);
  });

  it("judges every address a host resolves to: one private answer among public ones is refused", async () => {
    const lookup = async () => [
      { address: "93.184.215.14", family: 4 },
      { address: "10.0.0.7", family: 4 },
    ];
    await expect(assertHostAllowed("mixed.example.com", PRODUCTION_ADDRESS_POLICY, lookup)).rejects.toThrow(/mixed\.example\.com resolves to 10\.0\.0\.7/);
    const publicOnly = async () => [{ address: "2606:2800:21f:cb07:6820:80da:af6b:8b2c", family: 6 }];
    await expect(assertHostAllowed("public.example.com", PRODUCTION_ADDRESS_POLICY, publicOnly)).resolves.toHaveLength(1);
  });

  it("refuses URLs that are not http(s) or carry credentials", async () => {
    const { organizationId } = await createAnalyzedCall(db);
    for (const url of ["ftp://93.184.215.14/", "https://user:pass@93.184.215.14/", "not a url", "file:///etc/passwd"]) {
      await expect(createWebhookEndpoint(db, { organizationId, url, policy: PRODUCTION_ADDRESS_POLICY })).rejects.toMatchObject({
        code: "INVALID_REQUEST",
      });
    }
  });
});

/** IPv6 forms that carry an IPv4 address (issue 13, item 8): refused in every mode, loopback allowance or not. */
const embeddedIPv4Forms: Array<[string, RegExp]> = [
  ["http://[::a9fe:a9fe]/latest/meta-data/", /IPv4-compatible/],
  ["http://[::10.0.0.1]/hook", /IPv4-compatible/],
  ["http://[::127.0.0.1]:3000/hook", /IPv4-compatible/],
  ["http://[::8.8.8.8]/hook", /IPv4-compatible/],
  ["http://[::ffff:a9fe:a9fe]/latest/meta-data/", /link-local/],
  ["http://[::ffff:0:7f00:1]/hook", /IPv4-translated/],
  ["http://[2002:a9fe:a9fe::1]/hook", /6to4/],
  ["http://[2002:7f00:1::1]/hook", /6to4/],
  ["http://[64:ff9b::a9fe:a9fe]/hook", /NAT64 \(IPv6 embedding a link-local/],
  ["http://[64:ff9b::127.0.0.1]/hook", /NAT64 \(IPv6 embedding a loopback/],
  ["http://[64:ff9b::10.1.2.3]/hook", /NAT64 \(IPv6 embedding a private-network/],
  ["http://[64:ff9b:1::a00:1]/hook", /local-use NAT64/],
  ["http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/hook", /Teredo/],
];

describe("SSRF guard: IPv6 forms that embed an IPv4 address", () => {
  it.each(embeddedIPv4Forms)("refuses %s in production and in embedded mode", async (url, reason) => {
    const { organizationId } = await createAnalyzedCall(db);
    for (const policy of [PRODUCTION_ADDRESS_POLICY, LOOPBACK_ADDRESS_POLICY, { allowLoopback: true, allowPrivateNetworks: true }]) {
      const attempt = createWebhookEndpoint(db, { organizationId, url, policy });
      await expect(attempt).rejects.toMatchObject({ code: "INVALID_REQUEST" });
      await expect(attempt).rejects.toThrow(reason);
    }
  });

  it("judges IPv4-mapped addresses as the IPv4 address, and allows NAT64 only to a global IPv4 address", async () => {
    const { organizationId } = await createAnalyzedCall(db);
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://[::ffff:10.0.0.1]/hook", policy: PRODUCTION_ADDRESS_POLICY })).rejects.toThrow(/private-network/);
    const privateNetworks = { allowLoopback: true, allowPrivateNetworks: true };
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://[::ffff:10.0.0.1]/hook", policy: privateNetworks })).resolves.toBeTruthy();
    // ::ffff:127.0.0.1 is this machine's loopback: allowed where loopback is (embedded mode), like 127.0.0.1.
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://[::ffff:127.0.0.1]:9/hook", policy: LOOPBACK_ADDRESS_POLICY })).resolves.toBeTruthy();
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://[::ffff:127.0.0.1]:9/hook", policy: PRODUCTION_ADDRESS_POLICY })).rejects.toThrow(/loopback/);
    for (const url of ["http://[::ffff:93.184.215.14]/hook", "http://[64:ff9b::93.184.215.14]/hook"]) {
      await expect(createWebhookEndpoint(db, { organizationId, url, policy: PRODUCTION_ADDRESS_POLICY })).resolves.toBeTruthy();
    }
    // A host whose DNS answer is one of these forms is judged the same way.
    const lookup = async () => [{ address: "::a9fe:a9fe", family: 6 }];
    await expect(assertHostAllowed("sneaky.example.com", LOOPBACK_ADDRESS_POLICY, lookup)).rejects.toThrow(/sneaky\.example\.com resolves to ::a9fe:a9fe, an IPv4-compatible/);
  });

  it("refuses them again at delivery time, recording the refusal and sending nothing", async () => {
    const fixture = await createAnalyzedCall(db);
    // Saved before this guard existed (the URL written directly): delivery judges the address again.
    const { endpoint } = await createLoopbackEndpoint(db, fixture.organizationId, "http://127.0.0.1:9/hook");
    await db.update(webhookEndpoints).set({ url: "http://[::a9fe:a9fe]:9/hook" }).where(eq(webhookEndpoints.id, endpoint.endpointId));
    const { deliveryIds } = await createCallDeliveries(db, { callId: fixture.call.id });
    const result = await attemptWebhookDelivery(db, { deliveryId: deliveryIds[0]!, trigger: "automatic", automaticAttempt: 1, policy: LOOPBACK_ADDRESS_POLICY });
    expect(result).toMatchObject({ outcome: "retry", statusCode: null });
    expect(result.error).toMatch(/^Refused: .*IPv4-compatible/);
  });
});

describe("SSRF guard at delivery time (the resolved address, so DNS rebinding cannot slip through)", () => {
  it("refuses to connect to a loopback receiver in production mode, recording the refusal as an attempt", async () => {
    const receiver = await startReceiver();
    const fixture = await createAnalyzedCall(db);
    // Saved while loopback was allowed (or the DNS answer changed since): delivery checks again.
    await createLoopbackEndpoint(db, fixture.organizationId, receiver.url);
    const localhostUrl = receiver.url.replace("127.0.0.1", "localhost");
    await createLoopbackEndpoint(db, fixture.organizationId, localhostUrl);
    const { deliveryIds } = await createCallDeliveries(db, { callId: fixture.call.id });
    expect(deliveryIds).toHaveLength(2);

    for (const deliveryId of deliveryIds) {
      const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, policy: PRODUCTION_ADDRESS_POLICY });
      expect(result).toMatchObject({ outcome: "retry", statusCode: null });
      expect(result.error).toMatch(/^Refused: .*loopback/);
      const logged = await getWebhookDelivery(db, { organizationId: fixture.organizationId, deliveryId });
      expect(logged.attempts[0]).toMatchObject({ statusCode: null, succeeded: false });
    }
    expect(receiver.requests).toHaveLength(0);

    // The same deliveries go through when loopback is allowed (embedded mode).
    for (const deliveryId of deliveryIds) {
      const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 2, policy: LOOPBACK_ADDRESS_POLICY });
      expect(result.outcome).toBe("succeeded");
    }
    expect(receiver.requests).toHaveLength(2);
  });

  it("checks hostnames at connect time through the lookup hook (localhost → loopback refused)", async () => {
    const receiver = await startReceiver();
    const result = await postWebhook({
      url: receiver.url.replace("127.0.0.1", "localhost"),
      headers: { "content-type": "application/json" },
      body: "{}",
      policy: PRODUCTION_ADDRESS_POLICY,
    });
    expect(result).toMatchObject({ statusCode: null, blockedAddress: true });
    expect(result.error).toMatch(/localhost resolves to .*loopback/);
    expect(receiver.requests).toHaveLength(0);
  });
});

describe("address policy by mode", () => {
  it("production (external database) refuses loopback; embedded mode allows loopback only", async () => {
    delete process.env.EMBEDDED_MODE;
    delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
    expect(process.env.DATABASE_URL).toBeTruthy();
    expect(defaultAddressPolicy()).toEqual(PRODUCTION_ADDRESS_POLICY);

    process.env.EMBEDDED_MODE = "1";
    expect(defaultAddressPolicy()).toEqual(LOOPBACK_ADDRESS_POLICY);
    const { organizationId } = await createAnalyzedCall(db);
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://127.0.0.1:9/hook" })).resolves.toBeTruthy();
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://[::1]:9/hook" })).resolves.toBeTruthy();
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://10.0.0.5/hook" })).rejects.toThrow(/private-network/);
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://169.254.169.254/" })).rejects.toThrow(/link-local/);

    process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = "1";
    delete process.env.EMBEDDED_MODE;
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://10.0.0.5/hook" })).resolves.toBeTruthy();
    await expect(createWebhookEndpoint(db, { organizationId, url: "http://169.254.169.254/" })).rejects.toThrow(/link-local/);
  });
});
