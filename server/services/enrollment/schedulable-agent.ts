import type { DbOrTx } from "@/db";
import { findInputVariableDefinitions, getAgentOrThrow } from "@/db/queries/agents";
import type { AgentStep, BookingConfig } from "@/db/schema";
import { AppError } from "@/server/errors";
import { STEP_TEMPLATE_FIELDS } from "@/server/services/sequences/step-kinds";

/** `scheduledBy` of sequences created through the API key (dashboard-created ones carry "dashboard"). */
export const API_SCHEDULED_BY = "api";
export const DASHBOARD_SCHEDULED_BY = "dashboard";

/** What enrollment copies from the agent onto each sequence. */
export type AgentSnapshot = {
  organizationId: string;
  agentId: string;
  steps: AgentStep[];
  agentTimezone: string;
  promptVersionId: string | null;
  scheduledBy: string;
};

export type SchedulableAgent = AgentSnapshot & {
  status: "ACTIVE" | "PAUSED" | "ARCHIVED";
  requiredVariables: string[];
  emailRequired: boolean;
};

/** Why a booking configuration cannot book, or null when it is complete (DESIGN §8). */
export function bookingConfigProblem(config: BookingConfig | null): string | null {
  if (!config) return null;
  switch (config.mode) {
    case "link":
      return config.schedulingLinkId ? null : "link-based booking has no scheduling link";
    case "crm":
      return config.routerId && config.distributionId && config.workspaceId && config.bookerId
        ? null
        : "CRM-dependent booking needs a router, a distribution, a workspace ID and a booker ID";
    case "concierge":
      return config.conciergeRouterId ? null : "concierge booking has no router";
    default:
      return `unknown booking mode ${String((config as { mode?: unknown }).mode)}`;
  }
}

/**
 * The agent of an enrollment, scoped to the organization (404 AGENT_NOT_FOUND otherwise).
 * 422 AGENT_MISCONFIGURED when it cannot be scheduled: archived, no steps, an EMAIL or SMS step without its message
 * (agents saved before templates existed), or an incomplete booking mode.
 * Paused agents are schedulable: their sequences are created and wait until the agent is resumed.
 */
export async function getSchedulableAgent(
  db: DbOrTx,
  params: { organizationId: string; agentId: string; scheduledBy: string },
): Promise<SchedulableAgent> {
  const agent = await getAgentOrThrow(db, params);
  if (agent.status === "ARCHIVED") throw new AppError("AGENT_MISCONFIGURED", `Agent ${agent.id} is archived and cannot be scheduled.`);
  if (agent.steps.length === 0) throw new AppError("AGENT_MISCONFIGURED", `Agent ${agent.id} has no steps in its sequence.`);
  const silent = agent.steps.findIndex((step) => {
    const fields = STEP_TEMPLATE_FIELDS[step.stepType];
    return (fields.body && !step.body?.trim()) || (fields.subject && !step.subject?.trim());
  });
  if (silent >= 0) throw new AppError("AGENT_MISCONFIGURED", `Agent ${agent.id} cannot be scheduled: its ${agent.steps[silent]!.stepType} step ${silent + 1} has no message.`);
  const bookingProblem = bookingConfigProblem(agent.bookingConfig);
  if (bookingProblem) throw new AppError("AGENT_MISCONFIGURED", `Agent ${agent.id} cannot be scheduled: ${bookingProblem}.`);
  const variables = await findInputVariableDefinitions(db, { agentId: agent.id });
  return {
    organizationId: agent.organizationId,
    agentId: agent.id,
    status: agent.status,
    steps: agent.steps,
    agentTimezone: agent.timezones[0] ?? "UTC",
    promptVersionId: agent.currentPromptVersionId,
    scheduledBy: params.scheduledBy,
    requiredVariables: variables.filter((v) => v.required).map((v) => v.slug),
    emailRequired: agent.steps.some((step) => step.stepType === "EMAIL"),
  };
}
