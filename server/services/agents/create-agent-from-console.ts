import type { TAgentConfig } from "@/server/schemas/agent-config";
import type { DbOrTx } from "@/db";
import { assertAgentPool } from "@/server/services/numbers/pool-numbers";
import { createAgent } from "@/server/services/agents/create-agent";
import { agentFieldsOf, normalizeAgentConfig, resolveBookingConfig } from "./agent-config";
import { callHandlingOf, voiceSettingsOf } from "./update-agent-config";

export type CreateAgentFromConsoleParams = { organizationId: string; actorUserId: string | null; config: TAgentConfig };

/** Validates the console's configuration and creates the agent with its first prompt version (one transaction). */
export async function createAgentFromConsole(db: DbOrTx, params: CreateAgentFromConsoleParams): Promise<{ agentId: string; promptVersionId: string }> {
  const config = normalizeAgentConfig(params.config);
  await assertAgentPool(db, { organizationId: params.organizationId, phoneNumbers: config.phoneNumbers, hasSmsSteps: config.steps.some((step) => step.stepType === "SMS") });
  config.bookingConfig = await resolveBookingConfig(db, { organizationId: params.organizationId, requested: config.bookingConfig, stored: null });
  const agent = await createAgent(db, {
    organizationId: params.organizationId,
    ...agentFieldsOf(config),
    prompt: config.prompt,
    inputVariables: config.inputVariables,
    extractedVariables: config.extractedVariables.map((v) => ({
      ...v,
      dropdownOptions: v.dropdownOptions ?? undefined,
      datetimeFormat: v.datetimeFormat ?? undefined,
      formatDatetimeInUtc: v.formatDatetimeInUtc ?? undefined,
    })),
    outcomes: config.outcomes.map((o) => ({ ...o, customerDefined: true })),
    createdByUserId: params.actorUserId,
    voiceSettings: voiceSettingsOf(config),
    callHandling: callHandlingOf(config),
  });
  return { agentId: agent.id, promptVersionId: agent.currentPromptVersionId! };
}
