import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { chiliPiperBaseUrl } from "@/server/providers/chili-piper/config";
import { readSimulatorEndpoint, SIMULATOR_ENDPOINT_FILE } from "@/server/simulators/chili-piper/endpoint-file";
import { startEmbeddedChiliPiperSimulator, type EmbeddedSimulatorHandle } from "@/server/simulators/chili-piper/embedded";
import { CONTROL_TOKEN_HEADER, startChiliPiperSimulator, type ChiliPiperSimulator } from "@/server/simulators/chili-piper/server";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { attemptWebhookDelivery, createCallDeliveries } from "@/server/services/webhooks/deliveries";
import { useTestDb } from "../../helpers/db";
import { createAnalyzedCall, createLoopbackEndpoint, useTestEncryptionKey } from "../webhooks/fixtures";

useTestEncryptionKey();
const db = useTestDb();

const dirs: string[] = [];
const running: Array<{ stop: () => Promise<void> }> = [];
afterAll(async () => {
  for (const handle of running) await handle.stop();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), "ocs-sim-"));
  dirs.push(dir);
  return dir;
}

async function embedded(dir: string, port?: number): Promise<EmbeddedSimulatorHandle> {
  const handle = await startEmbeddedChiliPiperSimulator({ dataDir: dir, port });
  running.push(handle);
  return handle;
}

const stateOf = (handle: EmbeddedSimulatorHandle) => JSON.parse(readFileSync(handle.stateFile, "utf8")) as { clockOffsetMs: number; tenant: { apiKeys: unknown[] } };

function control(origin: string, pathAndQuery: string, body: unknown, token?: string) {
  return fetch(`${origin}/__simulator${pathAndQuery}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(token === undefined ? {} : { [CONTROL_TOKEN_HEADER]: token }) },
    body: JSON.stringify(body),
  });
}

describe("one calendar simulator per embedded instance (DATA_DIR)", () => {
  it("gives two instances on one machine two simulators, ports, tokens and states", async () => {
    const [dirA, dirB] = [dataDir(), dataDir()];
    const a = await embedded(dirA);
    const b = await embedded(dirB);
    expect(a.startedHere && b.startedHere).toBe(true);
    expect(a.url).not.toBe(b.url);
    expect(a.controlToken).not.toBe(b.controlToken);
    expect(a.stateFile).toBe(path.join(dirA, "chili-piper-simulator.json"));

    // Each records its endpoint in its own DATA_DIR, readable by its owner only (it holds the control token).
    for (const [dir, handle] of [[dirA, a], [dirB, b]] as const) {
      expect(readSimulatorEndpoint(dir)).toEqual({ url: handle.url, origin: handle.origin, controlToken: handle.controlToken, pid: process.pid });
      expect(statSync(path.join(dir, SIMULATOR_ENDPOINT_FILE)).mode & 0o777).toBe(0o600);
    }

    // A change in A stays in A.
    expect((await control(a.origin, "/advance-time", { ms: 3_600_000 }, a.controlToken)).status).toBe(200);
    expect(stateOf(a).clockOffsetMs).toBe(3_600_000);
    expect(stateOf(b).clockOffsetMs).toBe(0);
    // A's token does not open B.
    expect((await control(b.origin, "/advance-time", { ms: 1 }, a.controlToken)).status).toBe(401);
  });

  it("lets another process of the same instance (the seed CLI) find and reuse its simulator", async () => {
    const dir = dataDir();
    const server = await embedded(dir);
    const seed = await embedded(dir);
    expect(seed).toMatchObject({ startedHere: false, url: server.url, controlToken: server.controlToken });

    const saved = { EMBEDDED_MODE: process.env.EMBEDDED_MODE, DATA_DIR: process.env.DATA_DIR, CHILI_PIPER_BASE_URL: process.env.CHILI_PIPER_BASE_URL };
    try {
      process.env.EMBEDDED_MODE = "1";
      process.env.DATA_DIR = dir;
      delete process.env.CHILI_PIPER_BASE_URL;
      // The adapter's base URL in embedded mode: this instance's simulator, from its DATA_DIR.
      expect(chiliPiperBaseUrl()).toBe(server.url);
      process.env.DATA_DIR = dataDir();
      expect(chiliPiperBaseUrl()).toBe("http://127.0.0.1:0/api/fire-edge");
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it("starts a new simulator when the recorded one is gone, and removes its record when it stops", async () => {
    const dir = dataDir();
    writeFileSync(
      path.join(dir, SIMULATOR_ENDPOINT_FILE),
      JSON.stringify({ url: "http://127.0.0.1:9/api/fire-edge", origin: "http://127.0.0.1:9", controlToken: "stale", pid: 1 }),
    );
    const handle = await startEmbeddedChiliPiperSimulator({ dataDir: dir });
    expect(handle.startedHere).toBe(true);
    expect(readSimulatorEndpoint(dir)?.controlToken).toBe(handle.controlToken);
    await handle.stop();
    expect(readSimulatorEndpoint(dir)).toBeNull();
  });

  it("refuses a fixed port that another process holds instead of joining that simulator", async () => {
    const other = await embedded(dataDir());
    const port = Number(new URL(other.origin).port);
    await expect(startEmbeddedChiliPiperSimulator({ dataDir: dataDir(), port })).rejects.toThrow(/CHILI_PIPER_SIMULATOR_PORT \d+ is in use/);
  });
});

describe("the simulator's control paths need its per-process token", () => {
  let simulator: ChiliPiperSimulator;
  afterEach(async () => simulator?.stop());

  it("answers 401 without the token or with a wrong one, and changes nothing", async () => {
    simulator = await startChiliPiperSimulator();
    expect(simulator.controlToken).toMatch(/^[0-9a-f]{64}$/);
    const keys = simulator.state.tenant.apiKeys.length;
    for (const token of [undefined, "", "0".repeat(64), `${simulator.controlToken}x`]) {
      for (const [control_, body] of [["/api-keys", {}], ["/down", { down: true }], ["/advance-time", { ms: 86_400_000 }], ["/fail-next", { count: 5 }], ["/crm-contacts", { email: "x@y.example" }]] as const) {
        const res = await control(simulator.origin, control_, body, token);
        expect(res.status, `${control_} with ${String(token).slice(0, 8)}`).toBe(401);
        expect(await res.json()).toMatchObject({ errorCode: "Unauthorized" });
      }
      expect((await fetch(`${simulator.origin}/__simulator/health`, { headers: token === undefined ? {} : { [CONTROL_TOKEN_HEADER]: token } })).status).toBe(401);
    }
    expect(simulator.state.tenant.apiKeys).toHaveLength(keys);
    expect(simulator.state.clockOffsetMs).toBe(0);
    // Not down, no failure queued: an Edge request with the provider key still works.
    const edge = await fetch(`${simulator.url}/v1/org/workspace`, { headers: { authorization: `Bearer ${simulator.defaultApiKey}` } });
    expect(edge.status).toBe(200);

    const minted = await control(simulator.origin, "/api-keys", {}, simulator.controlToken);
    expect(minted.status).toBe(201);
    expect(simulator.state.tenant.apiKeys).toHaveLength(keys + 1);
  });

  it("a webhook endpoint on loopback pointed at a control path gets a 401 and changes nothing", async () => {
    simulator = await startChiliPiperSimulator();
    const keys = simulator.state.tenant.apiKeys.length;
    const fixture = await createAnalyzedCall(db);
    // Embedded mode allows loopback receivers, so these are valid endpoints.
    for (const control_ of ["/api-keys", "/down", "/advance-time", "/fail-next"]) {
      await createLoopbackEndpoint(db, fixture.organizationId, `${simulator.origin}/__simulator${control_}`);
    }
    const { deliveryIds } = await createCallDeliveries(db, { callId: fixture.call.id });
    expect(deliveryIds).toHaveLength(4);
    for (const deliveryId of deliveryIds) {
      const result = await attemptWebhookDelivery(db, { deliveryId, trigger: "automatic", automaticAttempt: 1, policy: LOOPBACK_ADDRESS_POLICY });
      expect(result).toMatchObject({ statusCode: 401 });
      expect(result.outcome).not.toBe("succeeded");
    }
    expect(simulator.state.tenant.apiKeys).toHaveLength(keys);
    expect(simulator.state.clockOffsetMs).toBe(0);
    const edge = await fetch(`${simulator.url}/v1/org/workspace`, { headers: { authorization: `Bearer ${simulator.defaultApiKey}` } });
    expect(edge.status).toBe(200);
  });
});
