import net, { type AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { LOOPBACK_ADDRESS_POLICY } from "@/server/services/webhooks/address-guard";
import { postWebhook } from "@/server/services/webhooks/http-sender";

/**
 * A receiver that closes an idle kept-alive connection just as we reuse it: the reset is not its answer. A raw TCP
 * server makes the race deterministic: every connection answers its first request (503, keep-alive) and resets
 * (RST) at the second. Seen in CI as one delivery in a thousand with "Connection reset by the receiver." and no
 * status, in tests/integration/compliance/events-feed.test.ts.
 */
let server: net.Server | null = null;
const sockets = new Set<net.Socket>();
afterEach(async () => {
  // Our keep-alive pool holds its sockets open: the server closes them, or close() would wait for them.
  for (const socket of sockets) socket.destroy();
  sockets.clear();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  server = null;
});
const tracked = (socket: net.Socket) => {
  sockets.add(socket);
  socket.on("close", () => sockets.delete(socket));
};

async function resettingReceiver() {
  const seen = { requests: 0, resets: 0, connections: 0 };
  server = net.createServer((socket) => {
    tracked(socket);
    seen.connections += 1;
    let onThisSocket = 0;
    socket.on("data", (data) => {
      const requests = data.toString("latin1").match(/^POST \//gm)?.length ?? 0;
      for (let i = 0; i < requests; i += 1) {
        onThisSocket += 1;
        seen.requests += 1;
        if (onThisSocket === 1) {
          socket.write("HTTP/1.1 503 Service Unavailable\r\nConnection: keep-alive\r\nKeep-Alive: timeout=60\r\nContent-Length: 4\r\n\r\ndown");
        } else {
          seen.resets += 1;
          socket.resetAndDestroy();
          return;
        }
      }
    });
    socket.on("error", () => {});
  });
  await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server!.address() as AddressInfo).port}/hook`, seen };
}

describe("webhook POSTs on a kept-alive socket the receiver has just closed", () => {
  it("send once more on a connection of their own: the receiver's answer is recorded, not the reset", async () => {
    const receiver = await resettingReceiver();
    const post = () => postWebhook({ url: receiver.url, headers: { "content-type": "application/json", "webhook-id": "msg_1" }, body: "{}", policy: LOOPBACK_ADDRESS_POLICY });
    const first = await post();
    expect(first).toMatchObject({ statusCode: 503, error: null });
    // The second reuses the first's socket (keep-alive), which the receiver resets: sent again, on a new connection.
    const second = await post();
    expect(receiver.seen.resets).toBeGreaterThanOrEqual(1);
    expect(second).toMatchObject({ statusCode: 503, error: null });
    expect(receiver.seen.connections).toBeGreaterThanOrEqual(2);
  });

  it("a reset on a fresh connection is the receiver's failure, recorded as such (not sent again)", async () => {
    server = net.createServer((socket) => {
      tracked(socket);
      socket.on("data", () => socket.resetAndDestroy());
      socket.on("error", () => {});
    });
    await new Promise<void>((resolve) => server!.listen(0, "127.0.0.1", resolve));
    let connections = 0;
    server.on("connection", () => (connections += 1));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
    const result = await postWebhook({ url, headers: { "content-type": "application/json" }, body: "{}", policy: LOOPBACK_ADDRESS_POLICY });
    expect(result).toMatchObject({ statusCode: null, error: "Connection reset by the receiver." });
    expect(connections).toBe(1);
  });
});
