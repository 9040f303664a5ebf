import { getCalendarIntegration, listAgentNumbers } from "@/server/services/integrations/calendar-integration";
import { voiceEngineSummary } from "@/server/services/integrations/voice-engine";
import { requireRole } from "@/server/trpc/init";
import { ZGetIntegrationsRequestSchema, ZGetIntegrationsResponseSchema } from "./get-integrations.schema";

/** Console: the calendar provider (never its key), the voice engine and the agents' numbers; every member reads. */
export const getIntegrationsProcedure = requireRole("member", { sessionOnly: true })
  .input(ZGetIntegrationsRequestSchema)
  .output(ZGetIntegrationsResponseSchema)
  .query(async ({ ctx }) => {
    const organizationId = ctx.auth.organizationId;
    const [calendar, agentNumbers] = await Promise.all([getCalendarIntegration(ctx.db, { organizationId }), listAgentNumbers(ctx.db, { organizationId })]);
    return { calendar, voiceEngine: voiceEngineSummary(), agentNumbers };
  });
