import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { calls } from "@/db/schema";
import { GET as recordingRoute, HEAD as recordingHeadRoute } from "@/app/api/recordings/[...key]/route";
import { serveLocalRecording } from "@/server/storage/serve-local-recording";
import { createTestCall, createTestSequence } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createConversation, createOrgWithAgent, makeWav, rotatingKey, useRecordingsSandbox } from "./fixtures";

useRecordingsSandbox();
const db = useTestDb();
const api = apiClient(db);

const THREE_HOURS = 3 * 60 * 60 * 1000;

describe("POST /recordings", () => {
  it("returns every call ordered by step, with signed URLs, durations, scheduled times and transcripts when asked", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    // Inserted out of step order on purpose.
    const { sequence, calls: made } = await createConversation(db, owner, [
      { stepNumber: 3, withAudio: true, transcript: "Agent: Third call." },
      { stepNumber: 1, withAudio: true, transcript: "Agent: First call." },
      { stepNumber: 2, transcript: null, resultType: "Busy", duration: 0 },
    ]);
    const now = new Date("2026-02-01T10:00:00.000Z");
    const res = await apiClient(db, { now: () => now })("/recordings", {
      method: "POST",
      key: apiKey,
      body: { sequenceIds: [sequence.id], includeTranscripts: true },
    });
    expect(res.status).toBe(200);
    expect(res.body.notFound).toBeUndefined();
    expect(res.body.recordings).toHaveLength(1);
    const entries = res.body.recordings[0].calls;
    expect(res.body.recordings[0].sequenceId).toBe(sequence.id);
    expect(entries.map((e: { stepNumber: number }) => e.stepNumber)).toEqual([1, 2, 3]);
    const byStep = (n: number) => made.find((c) => c.stepNumber === n)!;
    expect(entries[0]).toEqual({
      callId: byStep(1).id,
      recordingStatus: "downloaded",
      url: expect.stringMatching(/^http:\/\/.+\/api\/recordings\/.+\?expires=\d+&signature=[\w-]+$/),
      expiresAt: new Date(now.getTime() + THREE_HOURS).toISOString(),
      durationSeconds: 1,
      scheduledAt: byStep(1).scheduledAt.toISOString(),
      stepNumber: 1,
      transcript: "Agent: First call.",
    });
    expect(entries[1]).toEqual({
      callId: byStep(2).id,
      recordingStatus: "no-recording",
      durationSeconds: 0,
      scheduledAt: byStep(2).scheduledAt.toISOString(),
      stepNumber: 2,
    });
    expect(entries[2].transcript).toBe("Agent: Third call.");
    expect(entries[2].url).not.toBe(entries[0].url);

    const without = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [sequence.id] } });
    expect(without.status).toBe(200);
    for (const entry of without.body.recordings[0].calls) expect(entry).not.toHaveProperty("transcript");
    const explicitFalse = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [sequence.id], includeTranscripts: false } });
    for (const entry of explicitFalse.body.recordings[0].calls) expect(entry).not.toHaveProperty("transcript");
  });

  it("orders retries of a step by attempt, and a sequence with no calls yet has an empty list", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { sequence, calls: made } = await createConversation(db, owner, [
      { stepNumber: 2, attempt: 2 },
      { stepNumber: 2, attempt: 1 },
      { stepNumber: 1 },
    ]);
    const empty = await createTestSequence(db, owner);
    const res = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [empty.id, sequence.id] } });
    expect(res.status).toBe(200);
    expect(res.body.recordings.map((r: { sequenceId: string }) => r.sequenceId)).toEqual([empty.id, sequence.id]);
    expect(res.body.recordings[0].calls).toEqual([]);
    expect(res.body.recordings[1].calls.map((e: { callId: string }) => e.callId)).toEqual([made[2]!.id, made[1]!.id, made[0]!.id]);
  });

  it("collapses duplicates and lists unknown and foreign IDs in notFound without failing", async () => {
    const mine = await createOrgWithAgent(db);
    const other = await createOrgWithAgent(db, "Other Org");
    const a = await createConversation(db, { organizationId: mine.organization.id, agentId: mine.agent.id }, [{ withAudio: true }]);
    const b = await createConversation(db, { organizationId: mine.organization.id, agentId: mine.agent.id }, [{}, {}]);
    const foreign = await createConversation(db, { organizationId: other.organization.id, agentId: other.agent.id }, [{ withAudio: true }]);
    const res = await api("/recordings", {
      method: "POST",
      key: mine.apiKey,
      body: { sequenceIds: [b.sequence.id, a.sequence.id, b.sequence.id, "call-sequence.01unknown", foreign.sequence.id, a.sequence.id] },
    });
    expect(res.status).toBe(200);
    expect(res.body.recordings.map((r: { sequenceId: string }) => r.sequenceId)).toEqual([b.sequence.id, a.sequence.id]);
    expect(res.body.recordings[0].calls).toHaveLength(2);
    expect(res.body.notFound).toEqual(["call-sequence.01unknown", foreign.sequence.id]);
    expect(res.text).not.toContain(foreign.calls[0]!.id);

    const allUnknown = await api("/recordings", { method: "POST", key: mine.apiKey, body: { sequenceIds: ["call-sequence.nope"] } });
    expect(allUnknown.status).toBe(200);
    expect(allUnknown.body).toEqual({ recordings: [], notFound: ["call-sequence.nope"] });
  });

  it("allows exactly 500 calls and refuses 501 with TOO_MANY_CALLS", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const sequenceIds: string[] = [];
    // 100 sequences × 5 calls = 500.
    for (let s = 0; s < 100; s++) {
      const sequence = await createTestSequence(db, owner);
      sequenceIds.push(sequence.id);
      await db.insert(calls).values(
        Array.from({ length: 5 }, (_, i) => ({
          id: `call.${sequence.id.slice(-20)}${i}`,
          ...owner,
          sequenceId: sequence.id,
          stepNumber: i + 1,
          scheduledAt: new Date(Date.UTC(2026, 0, 5, 12, i)),
        })),
      );
    }
    const ok = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds } });
    expect(ok.status).toBe(200);
    expect(ok.body.recordings).toHaveLength(100);
    expect(ok.body.recordings.reduce((n: number, r: { calls: unknown[] }) => n + r.calls.length, 0)).toBe(500);

    await createTestCall(db, { ...owner, sequenceId: sequenceIds[42]!, stepNumber: 6, scheduledAt: new Date() });
    const tooMany = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds } });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body).toEqual({ error: "TOO_MANY_CALLS", message: expect.stringContaining("501") });
  });

  it("rejects 0 or more than 100 IDs, a missing field and wrong types with INVALID_REQUEST, and bad JSON with INVALID_REQUEST_BODY", async () => {
    const { organization } = await createOrgWithAgent(db);
    const key = rotatingKey(db, organization.id);
    const cases: unknown[] = [
      { sequenceIds: [] },
      { sequenceIds: Array.from({ length: 101 }, (_, i) => `call-sequence.${i}`) },
      {},
      { includeTranscripts: true },
      { sequenceIds: "call-sequence.x" },
      { sequenceIds: [42] },
      { sequenceIds: [""] },
      { sequenceIds: ["call-sequence.x"], includeTranscripts: "false" },
    ];
    for (const body of cases) {
      const res = await api("/recordings", { method: "POST", key: await key(), body });
      expect(res.status, JSON.stringify(body).slice(0, 60)).toBe(400);
      expect(res.body.error, JSON.stringify(body).slice(0, 60)).toBe("INVALID_REQUEST");
      expect(typeof res.body.message).toBe("string");
    }
    const missing = await api("/recordings", { method: "POST", key: await key(), body: {} });
    expect(missing.body.message).toContain("sequenceIds");
    // 100 IDs (with duplicates) is the limit, not an error.
    const hundred = await api("/recordings", { method: "POST", key: await key(), body: { sequenceIds: Array.from({ length: 100 }, () => "call-sequence.dup") } });
    expect(hundred.status).toBe(200);
    expect(hundred.body.notFound).toEqual(["call-sequence.dup"]);

    const badJson = await api("/recordings", { method: "POST", key: await key(), rawBody: '{"sequenceIds": [', headers: { "content-type": "application/json" } });
    expect(badJson.status).toBe(400);
    expect(badJson.body).toEqual({ error: "INVALID_REQUEST_BODY", message: expect.any(String) });
    expect((await api("/recordings", { method: "POST", body: { sequenceIds: ["x"] } })).status).toBe(401);
  });

  it("reports a call with a transcript and no recording as no-recording with its transcript", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const owner = { organizationId: organization.id, agentId: agent.id };
    const { sequence, calls: made } = await createConversation(db, owner, [
      { transcript: "Agent: Hi!\nCustomer: Who is this?" },
      // A provider-hosted recording we cannot sign, and a key whose file is missing: no retrievable audio either way.
      { recordingKey: "https://provider.example/rec/123.wav", transcript: "Agent: Voicemail." },
      { recordingKey: `${organization.id}/missing.wav`, transcript: "Agent: Lost audio." },
    ]);
    const res = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [sequence.id], includeTranscripts: true } });
    expect(res.status).toBe(200);
    const entries = res.body.recordings[0].calls;
    expect(entries.map((e: { recordingStatus: string }) => e.recordingStatus)).toEqual(["no-recording", "no-recording", "no-recording"]);
    expect(entries[0]).toEqual({
      callId: made[0]!.id,
      recordingStatus: "no-recording",
      durationSeconds: 42,
      scheduledAt: made[0]!.scheduledAt.toISOString(),
      stepNumber: 1,
      transcript: "Agent: Hi!\nCustomer: Who is this?",
    });
    for (const entry of entries) {
      expect(entry).not.toHaveProperty("url");
      expect(entry).not.toHaveProperty("expiresAt");
    }
    expect(res.text).not.toContain("provider.example");
  });
});

describe("GET /recordings/{callId}", () => {
  it("returns the entry with its sequenceId and a fresh URL; 404 CALL_NOT_FOUND for unknown and foreign calls", async () => {
    const mine = await createOrgWithAgent(db);
    const other = await createOrgWithAgent(db, "Other Org");
    const { sequence, calls: made } = await createConversation(db, { organizationId: mine.organization.id, agentId: mine.agent.id }, [
      { withAudio: true, transcript: "Agent: Hello." },
    ]);
    const foreign = await createConversation(db, { organizationId: other.organization.id, agentId: other.agent.id }, [{ withAudio: true }]);
    const t0 = new Date("2026-03-01T08:00:00.000Z");
    const first = await apiClient(db, { now: () => t0 })(`/recordings/${made[0]!.id}`, { key: mine.apiKey });
    expect(first.status).toBe(200);
    expect(first.body).toEqual({
      recording: {
        callId: made[0]!.id,
        sequenceId: sequence.id,
        recordingStatus: "downloaded",
        url: expect.any(String),
        expiresAt: "2026-03-01T11:00:00.000Z",
        durationSeconds: 1,
        scheduledAt: made[0]!.scheduledAt.toISOString(),
        stepNumber: 1,
      },
    });
    const later = new Date(t0.getTime() + 4 * 60 * 60 * 1000);
    const refreshed = await apiClient(db, { now: () => later })(`/recordings/${made[0]!.id}`, { key: mine.apiKey, query: { includeTranscript: "TRUE" } });
    expect(refreshed.body.recording.expiresAt).toBe("2026-03-01T15:00:00.000Z");
    expect(refreshed.body.recording.url).not.toBe(first.body.recording.url);
    expect(refreshed.body.recording.transcript).toBe("Agent: Hello.");
    // The old link is dead at that time, the new one plays.
    expect((await serveLocalRecording(new Request(first.body.recording.url), { now: () => later })).status).toBe(403);
    expect((await serveLocalRecording(new Request(refreshed.body.recording.url), { now: () => later })).status).toBe(200);

    for (const callId of ["call.01unknown", foreign.calls[0]!.id]) {
      const res = await api(`/recordings/${callId}`, { key: mine.apiKey });
      expect(res.status).toBe(404);
      expect(res.body).toEqual({ error: "CALL_NOT_FOUND", message: expect.any(String) });
    }
  });
});

describe("signed recording URLs", () => {
  it("play through the route: the whole WAV, then byte ranges for seeking", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const { calls: made } = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{ withAudio: true }]);
    const res = await api(`/recordings/${made[0]!.id}`, { key: apiKey });
    const url = res.body.recording.url as string;
    const wav = makeWav();

    const full = await recordingRoute(new Request(url));
    expect(full.status).toBe(200);
    expect(full.headers.get("content-type")).toBe("audio/wav");
    expect(full.headers.get("content-length")).toBe(String(wav.length));
    expect(full.headers.get("accept-ranges")).toBe("bytes");
    expect(full.headers.get("cache-control")).toContain("no-store");
    const bytes = new Uint8Array(await full.arrayBuffer());
    expect(Buffer.from(bytes).equals(Buffer.from(wav))).toBe(true);
    expect(Buffer.from(bytes.subarray(0, 4)).toString("ascii")).toBe("RIFF");

    const partial = await recordingRoute(new Request(url, { headers: { range: "bytes=100-199" } }));
    expect(partial.status).toBe(206);
    expect(partial.headers.get("content-range")).toBe(`bytes 100-199/${wav.length}`);
    expect(partial.headers.get("content-length")).toBe("100");
    expect(Buffer.from(await partial.arrayBuffer()).equals(Buffer.from(wav.subarray(100, 200)))).toBe(true);

    const openEnded = await recordingRoute(new Request(url, { headers: { range: `bytes=${wav.length - 10}-` } }));
    expect(openEnded.status).toBe(206);
    expect(Buffer.from(await openEnded.arrayBuffer()).equals(Buffer.from(wav.subarray(wav.length - 10)))).toBe(true);

    const suffix = await recordingRoute(new Request(url, { headers: { range: "bytes=-44" } }));
    expect(suffix.status).toBe(206);
    expect(suffix.headers.get("content-range")).toBe(`bytes ${wav.length - 44}-${wav.length - 1}/${wav.length}`);

    const beyond = await recordingRoute(new Request(url, { headers: { range: `bytes=${wav.length}-` } }));
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get("content-range")).toBe(`bytes */${wav.length}`);

    const head = await recordingHeadRoute(new Request(url, { method: "HEAD" }));
    expect(head.status).toBe(200);
    expect(head.headers.get("content-length")).toBe(String(wav.length));
    expect(await head.text()).toBe("");
  });

  it("refuses tampered links with 403 and no audio (a query that is no link's at all: 400)", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const { calls: made } = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{ withAudio: true }, { withAudio: true }]);
    const first = new URL((await api(`/recordings/${made[0]!.id}`, { key: apiKey })).body.recording.url);
    const second = new URL((await api(`/recordings/${made[1]!.id}`, { key: apiKey })).body.recording.url);

    const flipped = new URL(first);
    const signature = flipped.searchParams.get("signature")!;
    flipped.searchParams.set("signature", (signature[0] === "A" ? "B" : "A") + signature.slice(1));
    const extended = new URL(first);
    extended.searchParams.set("expires", String(Number(first.searchParams.get("expires")) + 3600));
    const otherFile = new URL(first);
    otherFile.pathname = second.pathname;
    const traversal = new URL(first);
    traversal.pathname = "/api/recordings/..%2F..%2Fapp.secret";
    const unsigned = new URL(first);
    unsigned.search = "";
    const nul = new URL(first);
    nul.searchParams.set("expires", "\u0000");

    for (const tampered of [flipped, extended, otherFile, traversal]) {
      const res = await recordingRoute(new Request(tampered));
      expect(res.status, tampered.pathname).toBe(403);
      expect(res.headers.get("content-type")).toContain("application/json");
      const body = await res.json();
      expect(body.error).toBe("FORBIDDEN");
      expect(JSON.stringify(body)).not.toContain("RIFF");
    }
    for (const [malformed, field] of [[unsigned, "expires"], [nul, "expires"]] as const) {
      const res = await recordingRoute(new Request(malformed));
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining(field) });
      expect(JSON.stringify(body)).not.toContain("RIFF");
    }
    expect((await recordingRoute(new Request(first))).status).toBe(200);
  });

  it("refuses an expired link (injected clock) with 403, and accepts it until the last second", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const { calls: made } = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{ withAudio: true }]);
    const t0 = new Date("2026-05-05T12:00:00.000Z");
    const res = await apiClient(db, { now: () => t0 })(`/recordings/${made[0]!.id}`, { key: apiKey });
    const url = res.body.recording.url as string;
    const at = (ms: number) => serveLocalRecording(new Request(url), { now: () => new Date(t0.getTime() + ms) });
    expect((await at(0)).status).toBe(200);
    expect((await at(THREE_HOURS - 1)).status).toBe(200);
    const expired = await at(THREE_HOURS);
    expect(expired.status).toBe(403);
    expect(await expired.json()).toEqual({ error: "FORBIDDEN", message: expect.stringContaining("expired") });
    expect((await at(THREE_HOURS + 24 * 3600 * 1000)).status).toBe(403);
  });

  it("answers 404 when the signed file is gone, and never signs audio after it is marked deleted", async () => {
    const { organization, apiKey, agent } = await createOrgWithAgent(db);
    const { calls: made } = await createConversation(db, { organizationId: organization.id, agentId: agent.id }, [{ withAudio: true }]);
    const url = (await api(`/recordings/${made[0]!.id}`, { key: apiKey })).body.recording.url as string;
    const { localRecordingStore } = await import("@/server/storage/recording-store");
    await localRecordingStore.delete(made[0]!.recordingKey!);
    const gone = await recordingRoute(new Request(url));
    expect(gone.status).toBe(404);
    expect((await api(`/recordings/${made[0]!.id}`, { key: apiKey })).body.recording.recordingStatus).toBe("no-recording");
    await localRecordingStore.put(made[0]!.recordingKey!, makeWav(), "audio/wav");
    await db.update(calls).set({ recordingDeletedAt: new Date() }).where(eq(calls.id, made[0]!.id));
    expect((await api(`/recordings/${made[0]!.id}`, { key: apiKey })).body.recording.recordingStatus).toBe("no-recording");
  });
});
