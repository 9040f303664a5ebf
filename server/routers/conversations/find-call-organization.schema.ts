import { z } from "zod";
import { idText } from "@/server/schemas/text";

export const ZFindCallOrganizationRequestSchema = z.object({ callId: idText() });
export const ZFindCallOrganizationResponseSchema = z
  .object({ orgId: z.string() })
  .nullable()
  .describe("The call's organization when the signed-in person is a member of it; null otherwise (unknown call or not a member alike).");
