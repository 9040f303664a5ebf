import type { inferRouterInputs, inferRouterOutputs } from "@trpc/server";
import type { AppRouter } from "@/server/trpc/root";

export type AgentDraft = inferRouterInputs<AppRouter>["agents"]["create"];
export type AgentView = inferRouterOutputs<AppRouter>["agents"]["getConfig"];

export const EMPTY_AGENT: AgentDraft = {
  name: "",
  status: "ACTIVE",
  timezones: ["America/New_York"],
  phoneNumbers: [],
  steps: [
    {
      stepType: "CALL",
      delaySeconds: 0,
      delaySecondsMax: null,
      executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" },
    },
  ],
  prompt: "",
  bookingConfig: null,
  inputVariables: [],
  extractedVariables: [],
  outcomes: [],
  voicemailMessage: null,
  ringTimeoutSeconds: 30,
  maxCallSeconds: 600,
  voice: "marin",
  replyEndsSequence: false,
  transferConfig: null,
  phoneMenuGoal: null,
  greetingMode: "on-answer",
  callPurpose: null,
  disclosureIdentification: null,
  disclosureRecordingNotice: null,
  recordingNoticeMode: "by-state",
};

/** The editable document of an existing agent (system-defined definitions are shown, not edited). */
export function draftFromView(view: AgentView): AgentDraft {
  return {
    name: view.name,
    status: view.status,
    timezones: view.timezones,
    phoneNumbers: view.phoneNumbers,
    steps: view.steps,
    prompt: view.prompt,
    bookingConfig: view.bookingConfig,
    inputVariables: view.inputVariables.map(({ id, slug, displayName, description, required }) => ({ id, slug, displayName, description, required })),
    extractedVariables: view.extractedVariables
      .filter((v) => !v.systemDefault)
      .map(({ id, slug, displayName, description, type, dropdownOptions, datetimeFormat, formatDatetimeInUtc }) => ({
        id,
        slug,
        displayName,
        description,
        type,
        dropdownOptions,
        datetimeFormat,
        formatDatetimeInUtc,
      })),
    outcomes: view.outcomes.filter((o) => o.customerDefined).map(({ id, name, description, enabled }) => ({ id, name, description, enabled })),
    voicemailMessage: view.voicemailMessage,
    ringTimeoutSeconds: view.ringTimeoutSeconds,
    maxCallSeconds: view.maxCallSeconds,
    voice: view.voice,
    replyEndsSequence: view.replyEndsSequence,
    transferConfig: view.transferConfig,
    phoneMenuGoal: view.phoneMenuGoal,
    greetingMode: view.greetingMode,
    callPurpose: view.callPurpose,
    answeredByActions: view.answeredByActions,
    answerMoves: view.answerMoves,
    disclosureIdentification: view.disclosureIdentification,
    disclosureRecordingNotice: view.disclosureRecordingNotice,
    recordingNoticeMode: view.recordingNoticeMode,
  };
}
