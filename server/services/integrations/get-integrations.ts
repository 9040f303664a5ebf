import type { DbOrTx } from "@/db";
import { getCalendarIntegration, listAgentNumbers } from "./calendar-integration";
import { voiceEngineSummary } from "./voice-engine";

export type GetIntegrationsParams = { organizationId: string };

/** The Integrations page: the calendar provider (never its key), the voice engine in use and each agent's numbers. */
export async function getIntegrations(db: DbOrTx, params: GetIntegrationsParams) {
  const [calendar, agentNumbers] = await Promise.all([getCalendarIntegration(db, params), listAgentNumbers(db, params)]);
  return { calendar, voiceEngine: voiceEngineSummary(), agentNumbers };
}
