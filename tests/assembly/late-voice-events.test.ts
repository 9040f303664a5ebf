/**
 * Voice events that arrive late (issue 38): the built app behind `npm start` (embedded defaults, the simulator in its
 * own process) with its simulator posting through a queue that holds some calls' events for longer than the watchdog's
 * limit — as a load balancer's or the app's own backlog does under a campaign. The watchdog asks the simulator about
 * each silent call (over its IPC channel) and waits; the events then end every call with its real result, one webhook
 * each, and nobody is dialed twice.
 */
import http from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort, listenForWebhooks, startBuiltApp, waitFor, type BuiltApp, type WebhookListener } from "./harness";

/** Today's limit, made short: a call silent this long is looked at by the next watchdog run (every minute). */
const CALLING_TIMEOUT_SECONDS = 5;
/** How long the queue holds a held call's events: any 65 s window holds a minute boundary past the limit. */
const HOLD_MS = 75_000;

type HeldEvent = { body: string; headers: Record<string, string> };

/**
 * A store-and-forward queue in front of `POST /api/voice/events`: it accepts every event at once (the simulator
 * thinks it delivered), forwards the events of most calls at once, and those of every other call it sees first
 * (1st, 3rd, …) only `HOLD_MS` after that call's first event, in arrival order.
 */
async function startEventQueue() {
  let target = "";
  const held = new Map<string, { firstSeenAt: number; events: HeldEvent[]; released: boolean }>();
  const seen: string[] = [];
  const forward = async (event: HeldEvent) => {
    const response = await fetch(target, { method: "POST", headers: event.headers, body: event.body });
    return { status: response.status, text: await response.text() };
  };
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (chunk: Buffer) => chunks.push(chunk));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString("utf8");
      const headers: Record<string, string> = {};
      for (const [key, value] of Object.entries(req.headers)) if (typeof value === "string" && key !== "host" && key !== "content-length") headers[key] = value;
      const { callId, type } = JSON.parse(body) as { callId: string; type: string };
      if (!seen.includes(callId)) {
        seen.push(callId);
        if (seen.length % 2 === 1) {
          const entry = { firstSeenAt: Date.now(), events: [] as HeldEvent[], released: false };
          held.set(callId, entry);
          setTimeout(async () => {
            for (const event of entry.events) await forward(event);
            entry.released = true;
          }, HOLD_MS);
        }
      }
      const entry = held.get(callId);
      // Tool calls need the app's answer: the scenarios used here make none (a held one would go through at once).
      if (!entry || entry.released || type === "call.tool") {
        forward({ body, headers }).then(
          (answer) => res.writeHead(answer.status, { "content-type": "application/json" }).end(answer.text),
          (error: unknown) => res.writeHead(502).end(String(error)),
        );
        return;
      }
      entry.events.push({ body, headers });
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ status: "queued" }));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${port}/api/voice/events`,
    setTarget: (origin: string) => void (target = `${origin}/api/voice/events`),
    heldCallIds: () => [...held.keys()],
    allReleased: () => [...held.values()].every((entry) => entry.released),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

let app: BuiltApp;
let webhooks: WebhookListener;
let queue: Awaited<ReturnType<typeof startEventQueue>>;

beforeAll(async () => {
  queue = await startEventQueue();
  app = await startBuiltApp({ env: { SIMULATOR_EVENTS_URL: queue.url, CALL_WATCHDOG_CALLING_TIMEOUT_SECONDS: String(CALLING_TIMEOUT_SECONDS) } });
  queue.setTarget(app.origin);
  webhooks = await listenForWebhooks(app);
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await webhooks?.close();
  await queue?.close();
});

describe("voice events later than the watchdog's limit (npm start)", () => {
  it("the watchdog asks the provider and waits: each call ends with its real result, one webhook, no second dial", async () => {
    const agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
    // Digits: 2 → Voicemail, 3 → Busy, 4 → No Conversation, 9 → Goal Not Completed (no tool calls in these scenarios).
    const expected: Record<string, string> = { "+12125550472": "Voicemail", "+12125550473": "Busy", "+12125550474": "No Conversation", "+12125550479": "Goal Not Completed" };
    const accepted = await app.api(`/agents/${agentId}/schedule/sequences`, {
      body: { timezone: "America/New_York", contacts: Object.keys(expected).map((phoneNumber, index) => ({ name: `Late Caller ${index + 1}`, phoneNumber, company_name: "Acme" })) },
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(202);
    expect(accepted.body).toMatchObject({ accepted: 4, rejected: [] });

    const numbers = Object.keys(expected);
    await waitFor(() => numbers.every((number) => webhooks.payloads().some((payload) => payload.phoneNumber === number)) && queue.allReleased(), {
      timeoutMs: 240_000,
      label: "a call-result webhook for each contact, the held events released",
      explain: () => ({
        received: webhooks.payloads().map((payload) => [payload.phoneNumber, payload.callResult?.resultType]),
        held: queue.heldCallIds(),
        errors: app.logs().filter((line) => line.level === "error" || line.level === "warn" || (typeof line.level === "number" && line.level >= 40)).slice(-10),
      }),
    });
    // Late webhooks (a second one for a call) would come shortly after: give them time to show.
    await new Promise((resolve) => setTimeout(resolve, 5_000));

    const held = queue.heldCallIds();
    expect(held).toHaveLength(2);
    const payloads = webhooks.payloads();
    for (const number of numbers) {
      const mine = payloads.filter((payload) => payload.phoneNumber === number);
      expect(mine.map((payload) => payload.callResult.resultType), number).toEqual([expected[number]]);
    }
    // The held calls were silent past the limit when the watchdog looked, and it asked the provider instead of failing them.
    await waitFor(
      () => held.every((callId) => app.logs().some((line) => line.msg === "watchdog: a silent call, asked at its provider" && line.callId === callId && line.action === "wait")),
      { timeoutMs: 10_000, label: "the watchdog's wait for each held call in the app's log" },
    );
    for (const callId of held) expect(payloads.filter((payload) => payload.callId === callId), callId).toHaveLength(1);
    // Nobody was dialed twice: one attempt per sequence, and no call of theirs failed.
    for (const payload of payloads) {
      const metadata = await app.api(`/conversations/metadata/${payload.sequence.sequenceId}`);
      expect(metadata.status).toBe(200);
      const entries = metadata.body.metadata as Array<{ attempt: number; callResult: { resultType: string } }>;
      expect(entries.filter((entry) => entry.attempt > 1), payload.phoneNumber).toEqual([]);
      expect(entries.map((entry) => entry.callResult.resultType)).not.toContain("Failed");
    }
  }, 300_000);
});
