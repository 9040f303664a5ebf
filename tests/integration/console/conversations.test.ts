import { describe, expect, it } from "vitest";
import type { AgentStep } from "@/db/schema";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";
import { useTestDb } from "../../helpers/db";
import { createTestCall, createTestSequence } from "../../factories";
import { createConversation, createOrgWithAgent, useRecordingsSandbox } from "../conversations/fixtures";
import { apiKeyCaller, consoleCaller, consoleUser } from "./helpers";

useRecordingsSandbox();
const db = useTestDb();

const window = { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" as const };
const THREE_STEPS: AgentStep[] = [
  { stepType: "CALL", delaySeconds: 0, delaySecondsMax: null, executionWindowConfig: window },
  { stepType: "CALL", delaySeconds: 86_400, delaySecondsMax: null, executionWindowConfig: window },
  { stepType: "CALL", delaySeconds: 172_800, delaySecondsMax: 3_600, executionWindowConfig: window },
];

describe("conversations.sequenceSummaries", () => {
  it("hydrates a search page in request order, with the last call's result, audio and transcript flags", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const withAudio = await createConversation(db, owner, [{ resultType: "Goal Not Completed" }, { withAudio: true, resultType: "Goal Completed" }], { name: "Grace Hopper" });
    const noAudio = await createConversation(db, owner, [{ resultType: "Voicemail", transcript: "Agent: Hello, leaving a message." }], { name: "Alan Turing" });
    const busy = await createConversation(db, owner, [{ resultType: "Busy", transcript: null }], { name: "Edsger Dijkstra" });
    const other = await createOrgWithAgent(db, "Other org");
    const foreign = await createConversation(db, { organizationId: other.organization.id, agentId: other.agent.id }, [{}]);

    const support = await consoleCaller(db, organization.id, "support");
    const result = await support.conversations.sequenceSummaries({
      sequenceIds: [noAudio.sequence.id, foreign.sequence.id, withAudio.sequence.id, "call-sequence.unknown", busy.sequence.id],
    });
    expect(result.sequences.map((s) => s.sequenceId)).toEqual([noAudio.sequence.id, withAudio.sequence.id, busy.sequence.id]);
    const [first, second, third] = result.sequences;
    expect(second).toMatchObject({
      name: "Grace Hopper",
      agentName: "Recorder",
      lifecycleStatus: "done",
      callCount: 2,
      lastCall: { callId: withAudio.calls[1]!.id, stepNumber: 2, resultType: "Goal Completed", callStatus: "goal-completed", hasRecording: true, hasTranscript: true },
    });
    expect(first!.lastCall).toMatchObject({ resultType: "Voicemail", hasRecording: false, hasTranscript: true });
    expect(third!.lastCall).toMatchObject({ resultType: "Busy", callStatus: "busy", hasRecording: false, hasTranscript: false });
    expect(second!.firstScheduledAt).toBe(withAudio.calls[0]!.scheduledAt.toISOString());
  });

  it("is for signed-in members of every role, never for API keys", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const conversation = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{}]);
    const member = await consoleCaller(db, organization.id, "member");
    expect((await member.conversations.sequenceSummaries({ sequenceIds: [conversation.sequence.id] })).sequences).toHaveLength(1);
    await expect(apiKeyCaller(db, apiKey).conversations.sequenceSummaries({ sequenceIds: [conversation.sequence.id] })).rejects.toMatchObject({
      cause: { code: "FORBIDDEN" },
    });
  });
});

describe("conversations.sequenceView", () => {
  it("shows steps done, scheduled and to come with their calls", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const sequence = await createTestSequence(db, {
      ...owner,
      name: "Katherine Johnson",
      steps: THREE_STEPS,
      lifecycleStatus: "in progress",
      customInputVariables: { crm_ref: "CRM-1" },
    });
    const first = await createTestCall(db, { ...owner, sequenceId: sequence.id, stepNumber: 1, scheduledAt: new Date("2026-01-10T15:00:00Z"), resultType: "Voicemail", duration: 31, transcript: "Agent: Hi." });
    const second = await createTestCall(db, { ...owner, sequenceId: sequence.id, stepNumber: 2, scheduledAt: new Date("2026-01-11T15:00:00Z"), resultType: "Scheduled" });

    const member = await consoleCaller(db, organization.id, "member");
    const view = await member.conversations.sequenceView({ sequenceId: sequence.id });
    expect(view.sequence).toMatchObject({ sequenceId: sequence.id, agentName: "Recorder", name: "Katherine Johnson", lifecycleStatus: "in progress", customInputVariables: { crm_ref: "CRM-1" } });
    expect(view.steps.map((s) => [s.stepNumber, s.state, s.callId, s.resultType])).toEqual([
      [1, "done", first.id, "Voicemail"],
      [2, "scheduled", second.id, "Scheduled"],
      [3, "to come", null, null],
    ]);
    expect(view.steps[2]).toMatchObject({ delaySeconds: 172_800, delaySecondsMax: 3_600, executionWindowConfig: window });
    expect(view.calls).toEqual([
      expect.objectContaining({ callId: first.id, callStatus: "voicemail", duration: 31, hasTranscript: true, hasRecording: false, hasMeeting: false }),
      expect.objectContaining({ callId: second.id, callStatus: "scheduled", hasTranscript: false }),
    ]);
    expect(view.chain).toBeNull();
  });

  it("marks steps of an ended sequence that never ran as not run", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const sequence = await createTestSequence(db, { ...owner, steps: THREE_STEPS, lifecycleStatus: "cancelled" });
    await createTestCall(db, { ...owner, sequenceId: sequence.id, stepNumber: 1, scheduledAt: new Date(), resultType: "Cancelled" });
    const view = await (await consoleCaller(db, organization.id, "admin")).conversations.sequenceView({ sequenceId: sequence.id });
    expect(view.steps.map((s) => s.state)).toEqual(["cancelled", "not run", "not run"]);
  });

  it("lists the chain of a chained contact with the members waiting for their turn", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const chain = { groupByField: "account", groupKey: "account=ACME", steps: THREE_STEPS };
    const active = await createTestSequence(db, { ...owner, ...chain, name: "First", chainPosition: 0, chainStatus: "active" });
    const waiting1 = await createTestSequence(db, { ...owner, ...chain, name: "Second", chainPosition: 1, chainStatus: "waiting" });
    await createTestSequence(db, { ...owner, ...chain, name: "Third", chainPosition: 2, chainStatus: "waiting", lifecycleStatus: "cancelled" });
    await createTestSequence(db, { ...owner, ...chain, name: "Fourth", chainPosition: 3, chainStatus: "waiting" });
    await createTestSequence(db, { ...owner, ...chain, groupKey: "account=OTHER", name: "Elsewhere", chainPosition: 0, chainStatus: "active" });

    const support = await consoleCaller(db, organization.id, "support");
    const view = await support.conversations.sequenceView({ sequenceId: waiting1.id });
    expect(view.chain).toMatchObject({ groupByField: "account", groupValue: "ACME", position: 1, chainStatus: "waiting", waitingCount: 2, truncated: false });
    expect(view.chain!.members.map((m) => [m.name, m.chainStatus, m.lifecycleStatus])).toEqual([
      ["First", "active", "in progress"],
      ["Second", "waiting", "in progress"],
      ["Third", "waiting", "cancelled"],
      ["Fourth", "waiting", "in progress"],
    ]);
    expect(view.chain!.members[0]!.sequenceId).toBe(active.id);
    // A waiting contact has no call yet: every step is still to come.
    expect(view.steps.map((s) => s.state)).toEqual(["to come", "to come", "to come"]);
  });

  it("answers SEQUENCE_NOT_FOUND for another organization's sequence", async () => {
    const mine = await createOrgWithAgent(db);
    const theirs = await createOrgWithAgent(db, "Theirs");
    const foreign = await createConversation(db, { organizationId: theirs.organization.id, agentId: theirs.agent.id }, [{}]);
    const admin = await consoleCaller(db, mine.organization.id, "admin");
    await expect(admin.conversations.sequenceView({ sequenceId: foreign.sequence.id })).rejects.toMatchObject({ cause: { code: "SEQUENCE_NOT_FOUND" } });
  });
});

describe("sequences.countByReference", () => {
  it("counts what a cancel by reference would cancel and skip, in this organization only", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    await createTestSequence(db, { ...owner, customInputVariables: { crm_ref: "R-9", account: "x" }, lifecycleStatus: "in progress" });
    await createTestSequence(db, { ...owner, customInputVariables: { crm_ref: "R-9" }, lifecycleStatus: "in progress" });
    await createTestSequence(db, { ...owner, customInputVariables: { crm_ref: "R-9" }, lifecycleStatus: "done" });
    await createTestSequence(db, { ...owner, customInputVariables: { crm_ref: "r-9" }, lifecycleStatus: "in progress" });
    const other = await createOrgWithAgent(db, "Other");
    await createTestSequence(db, { organizationId: other.organization.id, agentId: other.agent.id, customInputVariables: { crm_ref: "R-9" }, lifecycleStatus: "in progress" });

    const member = await consoleCaller(db, organization.id, "member");
    expect(await member.sequences.countByReference({ referenceKey: "crm_ref", referenceValue: "R-9" })).toEqual({ inProgress: 2, total: 3 });
    expect(await member.sequences.countByReference({ referenceKey: "crm_ref", referenceValue: "nothing" })).toEqual({ inProgress: 0, total: 0 });
  });
});

describe("call links (callUrl) in the console", () => {
  it("resolve to the call's organization for its members only", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const conversation = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{}]);
    const callId = conversation.calls[0]!.id;
    const member = await consoleUser(db, organization.id, "member");
    const other = await createOrgWithAgent(db, "Other");
    const outsider = await consoleUser(db, other.organization.id, "admin");

    // The call link page asks through the server caller, as the signed-in person (conversations.callOrganization).
    expect(await member.caller.conversations.callOrganization({ callId })).toEqual({ orgId: organization.orgId });
    expect(await outsider.caller.conversations.callOrganization({ callId })).toBeNull();
    expect(await member.caller.conversations.callOrganization({ callId: "call.unknown" })).toBeNull();
    const signedOut = createCaller(createContext({ db, source: "dashboard" }));
    await expect(signedOut.conversations.callOrganization({ callId })).rejects.toMatchObject({ code: "UNAUTHORIZED" });
  });
});
