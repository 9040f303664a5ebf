import { randomUUID } from "node:crypto";
import type { TelnyxSigningKey } from "./signing";

/**
 * Webhook delivery as Telnyx documents it:
 * - https://developers.telnyx.com/docs/voice/programmable-voice/receiving-webhooks — a JSON POST of
 *   `{data: {event_type, id, occurred_at, payload, record_type: "event"}, meta: {attempt, delivered_to}}` to the
 *   command's `webhook_url` (else the Call Control App's), signed with the account's Ed25519 key (signing.ts);
 * - https://developers.telnyx.com/docs/messaging/messages/receiving-webhooks — messaging events have the same envelope
 *   (`record_type: "event"`, the message in `payload`).
 * A delivery that fails (network error or non-2xx) is retried by Telnyx; the simulator records the first attempt only
 * (see docs/telnyx-simulator.md).
 */

export type SentWebhook = {
  eventType: string;
  url: string;
  /** The raw body exactly as signed and sent. */
  body: string;
  headers: Record<string, string>;
  /** The receiver's HTTP status, null when it could not be reached. */
  status: number | null;
};

export type WebhookEnvironment = {
  key: TelnyxSigningKey;
  resolvePublicUrl: (url: string) => string;
  log: (message: string) => void;
  webhooks: SentWebhook[];
};

export class WebhookSender {
  private readonly pending = new Set<Promise<void>>();

  constructor(private readonly env: WebhookEnvironment) {}

  /** Sends one event (in order: the caller awaits it before the next one of the same call). */
  send(url: string | null, eventType: string, payload: Record<string, unknown>): Promise<void> {
    if (!url) return Promise.resolve();
    const body = JSON.stringify({
      data: { event_type: eventType, id: randomUUID(), occurred_at: new Date().toISOString(), payload, record_type: "event" },
      meta: { attempt: 1, delivered_to: url },
    });
    const headers = { "content-type": "application/json", ...this.env.key.headersFor(body) };
    const entry: SentWebhook = { eventType, url, body, headers, status: null };
    this.env.webhooks.push(entry);
    const delivery = (async () => {
      try {
        const response = await fetch(this.env.resolvePublicUrl(url), { method: "POST", headers, body, signal: AbortSignal.timeout(15_000) });
        entry.status = response.status;
        await response.arrayBuffer();
      } catch (error) {
        this.env.log(`${eventType} webhook to ${url} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    })();
    const tracked = delivery.finally(() => this.pending.delete(tracked));
    this.pending.add(tracked);
    return tracked;
  }

  /** Resolves when every webhook sent so far has been delivered (or failed). */
  async idle(): Promise<void> {
    while (this.pending.size > 0) await Promise.all([...this.pending]);
  }
}
