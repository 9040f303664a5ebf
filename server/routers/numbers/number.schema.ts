import { z } from "zod";
import { numberCarriers, numberHealthStates, numberSources, numberStatuses } from "@/db/schema";

export const ZNumberSchema = z
  .object({
    numberId: z.string().describe("`number.<id>`."),
    phoneNumber: z.string().describe("E.164."),
    carrier: z.enum(numberCarriers).describe("The carrier the number is with."),
    capabilities: z
      .object({
        voice: z.boolean().describe("Places calls: may be in an agent's pool."),
        sms: z.boolean().describe("Sends SMS: an SMS step may text from it."),
        inbound: z.boolean().describe("Calls and texts to it reach this organization (false for a verified caller ID: outbound only)."),
      })
      .describe("What the number can do."),
    source: z
      .enum(numberSources)
      .describe("`purchased` (bought here), `platform-account` (already in the platform's carrier account), `verified-caller-id` (your own number, proved by a validation call), `migrated` (in your pools before numbers were owned)."),
    status: z
      .enum(numberStatuses)
      .describe("`active` (yours), `disputed` (listed by several organizations before numbers were owned: not dialed until you prove it with a caller-ID validation), `verifying` (its validation call is under way), `released`."),
    statusReason: z.string().nullable().describe("Why the status is what it is, in words."),
    region: z.string().nullable().describe("ISO 3166-2 (e.g. `US-NY`), when known."),
    locality: z.string().nullable(),
    dailyCallCap: z.number().int().describe("Calls a day from this number (its own cap or the deployment's default)."),
    dailyCallCapIsDefault: z.boolean().describe("Whether `dailyCallCap` is the deployment's default."),
    health: z
      .object({
        state: z.enum(numberHealthStates).describe("`healthy`, `watch` (answered less than the organization's other numbers: watched), `resting` (out of the rotation until `restingUntil`)."),
        reason: z.string().nullable().describe("Why, in words and figures."),
        changedAt: z.string().nullable().describe("When the state last changed (ISO 8601)."),
        restingUntil: z.string().nullable().describe("When a resting number comes back (under `watch`)."),
      })
      .describe("Number health (docs/numbers.md)."),
    agents: z.array(z.object({ agentId: z.string(), name: z.string() })).describe("The agents whose pools hold the number."),
    createdAt: z.string().describe("When the organization got the number (ISO 8601)."),
    releasedAt: z.string().nullable(),
  })
  .describe("One of the organization's phone numbers.")
  .meta({
    examples: [
      {
        numberId: "number.01jfczz8x3q4w5e6r7t8y9u0i1",
        phoneNumber: "+12125550142",
        carrier: "twilio",
        capabilities: { voice: true, sms: true, inbound: true },
        source: "purchased",
        status: "active",
        statusReason: null,
        region: "US-NY",
        locality: "New York",
        dailyCallCap: 100,
        dailyCallCapIsDefault: true,
        health: { state: "resting", reason: "answered 6 of 52 calls (12 %) against 41 % for your other numbers to the same places and hours", changedAt: "2026-11-28T15:04:05.000Z", restingUntil: "2026-11-30T15:04:05.000Z" },
        agents: [{ agentId: "agent.01jfczz8x3q4w5e6r7t8y9u0i2", name: "Ava" }],
        createdAt: "2026-11-02T09:30:00.000Z",
        releasedAt: null,
      },
    ],
  });
export type TNumber = z.infer<typeof ZNumberSchema>;

export const ZAvailableNumberSchema = z
  .object({
    phoneNumber: z.string().describe("E.164."),
    region: z.string().nullable().describe("ISO 3166-2."),
    locality: z.string().nullable(),
    capabilities: z.object({ voice: z.boolean(), sms: z.boolean() }),
  })
  .describe("A number the carrier offers.");
