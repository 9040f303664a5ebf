import type { AgentVoiceSettings } from "@/server/voice/agent-voice-settings";
import type { AnswerMoves } from "@/server/voice/answer-classifier/answer-moves";
import type { DbOrTx } from "@/db";
import {
  agents,
  extractedVariableDefinitions,
  inputVariableDefinitions,
  outcomeDefinitions,
  promptVersions,
  type AgentStep,
  type BookingConfig,
  type ExtractedVariableType,
  type TransferConfig,
} from "@/db/schema";
import { newId } from "@/server/ids";

export type InputVariableInput = { slug: string; displayName?: string; description?: string; required?: boolean };
export type ExtractedVariableInput = {
  slug: string;
  displayName?: string;
  description?: string;
  type: ExtractedVariableType;
  dropdownOptions?: string[];
  datetimeFormat?: string;
  formatDatetimeInUtc?: boolean;
  systemDefault?: boolean;
};
export type OutcomeInput = { name: string; description?: string; enabled?: boolean; customerDefined?: boolean };

export type CreateAgentParams = {
  organizationId: string;
  name: string;
  status?: "ACTIVE" | "PAUSED" | "ARCHIVED";
  timezones?: string[];
  /** The pool: the organization's own numbers (checked by the callers that take them from users; docs/numbers.md). */
  phoneNumbers?: string[];
  steps?: AgentStep[];
  bookingConfig?: BookingConfig | null;
  prompt?: string;
  inputVariables?: InputVariableInput[];
  extractedVariables?: ExtractedVariableInput[];
  outcomes?: OutcomeInput[];
  createdByUserId?: string | null;
  createdAt?: Date;
  /** Real voice engine settings; the column defaults when left out. `answerMoves` is stored as given (partial). */
  voiceSettings?: Partial<Omit<AgentVoiceSettings, "answerMoves">> & { answerMoves?: AnswerMoves };
  /** Transfers and phone menus (docs/call-engine.md "Transfers"); none when left out. */
  callHandling?: { transferConfig?: TransferConfig | null; phoneMenuGoal?: string | null };
  /** Any SMS reply ends the sequence (default false). */
  replyEndsSequence?: boolean;
};

export const DEFAULT_STEPS: AgentStep[] = [
  {
    stepType: "CALL",
    delaySeconds: 0,
    delaySecondsMax: null,
    executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1080 }, timezoneSource: "contact" },
  },
];

export function titleFromSlug(slug: string): string {
  return slug
    .split(/[_\-\s]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join(" ");
}

/** Creates an agent with its definitions and first prompt version in one transaction. */
export async function createAgent(db: DbOrTx, params: CreateAgentParams) {
  return db.transaction(async (tx) => {
    const agentId = newId("agent");
    const promptVersionId = newId("prompt-ver");
    const createdAt = params.createdAt ?? new Date();
    const [agent] = await tx
      .insert(agents)
      .values({
        id: agentId,
        organizationId: params.organizationId,
        name: params.name,
        status: params.status ?? "ACTIVE",
        timezones: params.timezones ?? ["America/New_York"],
        phoneNumbers: params.phoneNumbers ?? [],
        steps: params.steps ?? DEFAULT_STEPS,
        bookingConfig: params.bookingConfig ?? null,
        currentPromptVersionId: promptVersionId,
        ...params.voiceSettings,
        ...params.callHandling,
        replyEndsSequence: params.replyEndsSequence ?? false,
        createdAt,
        updatedAt: createdAt,
      })
      .returning();
    await tx.insert(promptVersions).values({
      id: promptVersionId,
      agentId,
      prompt: params.prompt ?? `You are ${params.name}, a friendly assistant calling on behalf of the organization.`,
      createdByUserId: params.createdByUserId ?? null,
    });
    if (params.inputVariables?.length) {
      await tx.insert(inputVariableDefinitions).values(
        params.inputVariables.map((v, position) => ({
          id: newId("var"),
          agentId,
          slug: v.slug,
          displayName: v.displayName ?? titleFromSlug(v.slug),
          description: v.description ?? "",
          required: v.required ?? false,
          position,
        })),
      );
    }
    if (params.extractedVariables?.length) {
      await tx.insert(extractedVariableDefinitions).values(
        params.extractedVariables.map((v, position) => ({
          id: newId("var"),
          agentId,
          slug: v.slug,
          displayName: v.displayName ?? titleFromSlug(v.slug),
          description: v.description ?? "",
          type: v.type,
          dropdownOptions: v.type === "DROPDOWN" ? (v.dropdownOptions ?? []) : null,
          datetimeFormat: v.type === "DATE/TIME" ? (v.datetimeFormat ?? "yyyy-MM-dd HH:mm:ss") : null,
          formatDatetimeInUtc: v.type === "DATE/TIME" ? (v.formatDatetimeInUtc ?? false) : null,
          systemDefault: v.systemDefault ?? false,
          position,
        })),
      );
    }
    if (params.outcomes?.length) {
      await tx.insert(outcomeDefinitions).values(
        params.outcomes.map((o, position) => ({
          id: newId("outcome"),
          agentId,
          name: o.name,
          description: o.description ?? "",
          enabled: o.enabled ?? true,
          customerDefined: o.customerDefined ?? true,
          position,
        })),
      );
    }
    return agent!;
  });
}
