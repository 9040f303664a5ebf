import { z } from "zod";
import { queryInteger } from "@/server/routers/conversations/query-params";
import { feedEventTypes } from "@/db/schema";
import { ZCallEventPayloadSchema } from "@/server/schemas/call";
import { MAX_EVENTS_LIMIT } from "@/server/schemas/limits";
import { idText } from "@/server/schemas/text";
import type { Meta } from "@/server/trpc/init";

export const listEventsMeta: Meta = {
  openapi: {
    method: "GET",
    path: "/events",
    tags: ["Events"],
    summary: "List events (catch up on webhooks)",
    description: [
      "Every call result of the organization, in creation order, kept 30 days, whether or not a webhook endpoint is",
      "configured or was reachable. `data` is exactly the call-result webhook body and `id` that delivery's",
      "`webhook-id`, so a receiver that deduplicates webhooks on `webhook-id` can feed both into one handler.",
      "Poll with `after` = the previous `nextCursor`: events are never skipped or repeated, also while new ones are",
      "being written. `hasMore` tells whether to fetch the next page right away.",
    ].join(" "),
    protect: true,
    errorResponses: {
      400: "INVALID_REQUEST: `after` is not a cursor this API returned, `limit` outside 1–500, `agentId` too long",
      401: "Missing (UNAUTHORIZED) or invalid (INVALID_API_KEY) API key",
      404: "AGENT_NOT_FOUND: `agentId` is not an agent of this organization",
    },
  },
};

export const ZListEventsRequestSchema = z.object({
  after: idText().optional().describe("Opaque cursor: the `nextCursor` of the previous page. Omit to start at the oldest event kept."),
  limit: queryInteger({ min: 1, max: MAX_EVENTS_LIMIT, description: "Events per page, 1 to 500 (default 100)." }).optional(),
  agentId: idText().optional().describe("Only calls (and messages) of this agent; events of no one agent (`number.health_changed`) are then left out."),
});

const callEventPayloadJsonSchema = (() => {
  const { $schema: _ignored, ...schema } = z.toJSONSchema(ZCallEventPayloadSchema, { unrepresentable: "any" }) as Record<string, unknown>;
  return schema;
})();

export const ZEventSchema = z
  .object({
    id: z.string().describe("`call.result`: the `webhook-id` of the call's webhook deliveries (`msg_<call ULID>`); other events: `evt_…`, unique per event (for `number.health_changed`, also its deliveries' `webhook-id`)."),
    type: z
      .enum(feedEventTypes)
      .describe("`call.result` (a call's result: `data` is the webhook body), a message event (`email.sent`, `email.failed`, `email.unsubscribed`, `email.skipped`, `sms.sent`, `sms.delivered`, `sms.failed`, `sms.received`, `sms.skipped`: `data` is a message object, docs/sequences.md) or `number.health_changed` (one of the organization's numbers changed health: `data` is the event's webhook body, docs/numbers.md). New types may be added: skip types you do not know."),
    createdAt: z.string().describe("When the result was recorded (ISO 8601)."),
    data: z
      .record(z.string(), z.unknown())
      .meta({ override: { ...callEventPayloadJsonSchema, description: "`call.result`: the call-result webhook body, exactly as delivered. Message events: `{messageId, channel, direction, status, sequenceId, stepNumber, agentId, to, from, error, …}`." } }),
  })
  .describe("An event of the feed.");

export const ZListEventsResponseSchema = z.object({
  events: z.array(ZEventSchema),
  nextCursor: z.string().nullable().describe("Pass as `after` for the next page (the last event's cursor, or the given one when there is nothing new); null only when there are no events and no cursor was given."),
  hasMore: z.boolean().describe("More events are available right now."),
});
export type TListEventsResponse = z.infer<typeof ZListEventsResponseSchema>;
