import { monotonicFactory } from "ulid";

const nextUlid = monotonicFactory();

export type WebhookIdPrefix = "webhook-endpoint" | "webhook-delivery" | "webhook-attempt";

/** `<prefix>.<lowercase ULID>`, monotonic within the process so the delivery log can page by ID. */
export function newWebhookEntityId(prefix: WebhookIdPrefix): string {
  return `${prefix}.${nextUlid().toLowerCase()}`;
}
