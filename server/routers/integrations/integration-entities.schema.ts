import { z } from "zod";

const ZPermission = z.string();

export const ZCapabilityCheckSchema = z.object({
  capability: z.enum(["link", "crm", "concierge", "meetings"]),
  required: z.array(ZPermission),
  missing: z.array(ZPermission),
  works: z.boolean(),
  agentsUsing: z.number().int(),
});

export const ZCalendarIntegrationSchema = z.object({
  provider: z.literal("chili-piper"),
  connected: z.boolean(),
  connection: z
    .object({
      provider: z.literal("chili-piper"),
      keyFingerprint: z.string(),
      keyHint: z.string().nullable().describe("The key's last 4 characters; the key itself is never returned."),
      permissions: z.array(ZPermission),
      connectedAt: z.string(),
      permissionsCheckedAt: z.string(),
      connectedBy: z.object({ name: z.string(), email: z.string() }).nullable(),
    })
    .nullable(),
  capabilities: z.array(ZCapabilityCheckSchema),
  bookingAgents: z.number().int(),
});
