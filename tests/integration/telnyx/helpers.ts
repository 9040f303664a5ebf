import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { vi } from "vitest";
import { POST as carrierRoute } from "@/app/api/carriers/[carrier]/[...path]/route";
import { getTelnyxAccount, stopEmbeddedTelnyxSimulator } from "@/server/carriers/telnyx/telnyx-account";
import type { TelnyxSimulator } from "@/server/simulators/telnyx";

export type Delivery = { path: string; body: string; headers: Record<string, string>; status: number };

/**
 * The app's carrier route behind a loopback HTTP server on PORT, where the embedded Telnyx simulator (TELNYX_API_KEY
 * unset) delivers its webhooks: `/api/…` goes to the real route handler; `/capture/…` is only recorded (a genuine
 * signed delivery a test then replays, tampers with or delays).
 */
export async function startTelnyxApp() {
  const deliveries: Delivery[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers = Object.fromEntries(Object.entries(req.headers).flatMap(([key, value]) => (typeof value === "string" ? [[key, value]] : [])));
      const path = req.url ?? "/";
      if (!path.startsWith("/api/")) {
        deliveries.push({ path, body, headers, status: 200 });
        res.writeHead(200).end();
        return;
      }
      void post(path, body, headers)
        .then(async (response) => {
          deliveries.push({ path, body, headers, status: response.status });
          res.writeHead(response.status).end(Buffer.from(await response.arrayBuffer()));
        })
        .catch((error: unknown) => res.writeHead(500).end(String(error)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  vi.stubEnv("PORT", String((server.address() as AddressInfo).port));
  const account = await getTelnyxAccount();
  const simulator = account.simulator as TelnyxSimulator;
  const base = account.publicBaseUrl;

  /** Posts to the real route handler, as Telnyx would reach `${base}${path}`. */
  async function post(path: string, body: string, headers: Record<string, string>): Promise<Response> {
    const url = new URL(`${base}${path}`);
    const [, , , carrier, ...rest] = url.pathname.split("/");
    return carrierRoute(new Request(url, { method: "POST", headers, body }), { params: Promise.resolve({ carrier: carrier!, path: rest }) });
  }
  return {
    base,
    simulator,
    deliveries,
    post,
    stop: async () => {
      await stopEmbeddedTelnyxSimulator();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      vi.unstubAllEnvs();
    },
  };
}
