import { describe, expect, it } from "vitest";
import { GET as recordingRoute } from "@/app/api/recordings/[...key]/route";
import { ZCallMetadataSchema } from "@/server/schemas/call";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";
import { createTestSequence } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createConversation, createOrgWithAgent, makeWav, rotatingKey, useRecordingsSandbox } from "./fixtures";

useRecordingsSandbox();
const db = useTestDb();
const api = apiClient(db);

describe("GET /conversations/metadata/{sequenceId}", () => {
  it("returns one Call metadata object per call step, in step order, without recording URLs by default", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { sequence, calls: made } = await createConversation(db, owner, [
      { stepNumber: 2, withAudio: true, resultType: "Goal Completed" },
      { stepNumber: 1, withAudio: true, resultType: "Voicemail" },
    ]);
    const res = await api(`/conversations/metadata/${sequence.id}`, { key: apiKey });
    expect(res.status).toBe(200);
    expect(res.body.sequenceId).toBe(sequence.id);
    expect(res.body.metadata).toHaveLength(2);
    for (const item of res.body.metadata) {
      expect(ZCallMetadataSchema.strict().safeParse(item).success).toBe(true);
      expect(item).not.toHaveProperty("recordingUrl");
    }
    expect(res.body.metadata.map((m: { callId: string }) => m.callId)).toEqual([made[1]!.id, made[0]!.id]);
    expect(res.body.metadata[0]).toMatchObject({
      agentId: agent.id,
      agentName: "Recorder",
      name: "Ada Lovelace",
      direction: "outbound",
      duration: 42,
      callStatus: "voicemail",
      sequence: { sequenceId: sequence.id, lifecycleStatus: "done" },
      callResult: { resultType: "Voicemail", transcription: expect.stringContaining("Agent:") },
    });
    const empty = await createTestSequence(db, owner);
    const none = await api(`/conversations/metadata/${empty.id}`, { key: apiKey });
    expect(none.body).toEqual({ sequenceId: empty.id, metadata: [], messages: [] });
  });

  it("adds a signed recordingUrl only for includeRecording=true in any letter case, and only where audio exists", async () => {
    const { organization, agent } = await createOrgWithAgent(db);
    const key = rotatingKey(db, organization.id);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { sequence } = await createConversation(db, owner, [{ withAudio: true }, { transcript: "Agent: no audio here." }]);

    for (const value of ["true", "TRUE", "True", "tRuE"]) {
      const res = await api(`/conversations/metadata/${sequence.id}`, { key: await key(), query: { includeRecording: value } });
      expect(res.status, value).toBe(200);
      expect(res.body.metadata[0].recordingUrl, value).toMatch(/\/api\/recordings\/.+\?expires=\d+&signature=/);
      expect(res.body.metadata[1], value).not.toHaveProperty("recordingUrl");
    }
    for (const value of ["false", "FALSE", "1", "yes", "", "true ", "truee", "on"]) {
      const res = await api(`/conversations/metadata/${sequence.id}`, { key: await key(), query: { includeRecording: value } });
      expect(res.status, JSON.stringify(value)).toBe(200);
      for (const item of res.body.metadata) expect(item, JSON.stringify(value)).not.toHaveProperty("recordingUrl");
    }
    // "false" after a "true" (and the other way round) behaves the same: no coercion state leaks between requests.
    const afterFalse = await api(`/conversations/metadata/${sequence.id}`, { key: await key(), query: { includeRecording: "True" } });
    expect(afterFalse.body.metadata[0].recordingUrl).toBeDefined();

    const played = await recordingRoute(new Request(afterFalse.body.metadata[0].recordingUrl));
    expect(played.status).toBe(200);
    expect(Buffer.from(await played.arrayBuffer()).equals(Buffer.from(makeWav()))).toBe(true);
  });

  it("answers 404 SEQUENCE_NOT_FOUND for unknown sequences and sequences of another organization", async () => {
    const mine = await createOrgWithAgent(db);
    const other = await createOrgWithAgent(db, "Other");
    const foreign = await createConversation(db, { organizationId: other.organization.id, agentId: other.agent.id }, [{ withAudio: true }]);
    for (const sequenceId of ["call-sequence.01unknown", foreign.sequence.id]) {
      const res = await api(`/conversations/metadata/${sequenceId}`, { key: mine.apiKey, query: { includeRecording: "true" } });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "SEQUENCE_NOT_FOUND", message: expect.any(String) });
    }
    expect((await api(`/conversations/metadata/${foreign.sequence.id}`)).status).toBe(401);
  });

  it("takes real booleans and numbers from tRPC callers (the dashboard) after REST traffic, with the same meaning", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const { sequence } = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{ withAudio: true }]);
    await api(`/conversations/metadata/${sequence.id}`, { key: apiKey, query: { includeRecording: "false" } });
    const caller = createCaller(createContext({ db, source: "rest", headers: new Headers({ "x-api-key": apiKey }) }));
    const withUrl = await caller.conversations.metadata({ sequenceId: sequence.id, includeRecording: true });
    expect(withUrl.metadata[0]!.recordingUrl).toBeDefined();
    const withoutUrl = await caller.conversations.metadata({ sequenceId: sequence.id, includeRecording: false });
    expect(withoutUrl.metadata[0]!.recordingUrl).toBeUndefined();
    const page = await caller.conversations.search({ agentId: agent.id, start: "2099-01-10", end: "2099-01-10", limit: 1, offset: 0 });
    expect(page).toEqual({ sequenceIds: [sequence.id], hasMore: false, total: 1, limit: 1, offset: 0 });
  });
});
