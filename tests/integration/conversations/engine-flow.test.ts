import { afterEach, describe, expect, it } from "vitest";
import { GET as recordingRoute } from "@/app/api/recordings/[...key]/route";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createEngineOrganization, enroll, startCallEngine, type CallEngineHarness } from "../call-engine/harness";
import { rotatingKey, useRecordingsSandbox } from "./fixtures";

useRecordingsSandbox();
const db = useTestDb();
let engine: CallEngineHarness | null = null;
afterEach(async () => {
  await engine?.stop();
  engine = null;
});

type Entry = { callId: string; recordingStatus: string; url?: string; transcript?: string; stepNumber: number };

describe("conversations over calls made by the call engine (simulated voice engine)", () => {
  it("search → metadata → recordings: WAV audio for connected calls, no-recording for Busy and for digit 9's transcript-only call", async () => {
    // A 2099 clock: the recording-retention cron of other runners can never find these recordings old.
    const start = new Date("2099-03-02T15:00:00Z");
    engine = await startCallEngine(db, { start });
    const { organization, agent } = await createEngineOrganization(db);
    const key = rotatingKey(db, organization.id);
    const api = apiClient(db, { now: engine.clock.now });
    const byDigit = new Map<number, string>();
    for (const digit of [2, 3, 9, 0]) byDigit.set(digit, (await enroll(db, { agent, phoneNumber: `+1202555017${digit}`, now: start })).sequenceId);
    await engine.settle();

    const search = await api(`/conversations/search/${agent.id}`, { key: await key(), query: { start: "2099-03-02", end: "2099-03-02" } });
    expect(search.status).toBe(200);
    expect([...search.body.sequenceIds].sort()).toEqual([...byDigit.values()].sort());

    const metadata = await api(`/conversations/metadata/${byDigit.get(2)}`, { key: await key(), query: { includeRecording: "TRUE" } });
    expect(metadata.status).toBe(200);
    expect(metadata.body.metadata[0]).toMatchObject({ callResult: { resultType: "Voicemail" }, callStatus: "voicemail", recordingUrl: expect.any(String) });

    const res = await api("/recordings", { method: "POST", key: await key(), body: { sequenceIds: [...byDigit.values()], includeTranscripts: true } });
    expect(res.status).toBe(200);
    const firstCall = (digit: number): Entry =>
      res.body.recordings.find((r: { sequenceId: string }) => r.sequenceId === byDigit.get(digit)).calls.find((c: Entry) => c.stepNumber === 1);
    expect(firstCall(2)).toMatchObject({ recordingStatus: "downloaded", url: expect.any(String), transcript: expect.stringContaining("Agent: ") });
    expect(firstCall(0)).toMatchObject({ recordingStatus: "downloaded", transcript: expect.stringContaining("Customer: ") });
    expect(firstCall(3).recordingStatus).toBe("no-recording");
    expect(firstCall(3)).not.toHaveProperty("transcript");
    expect(firstCall(9)).toMatchObject({ recordingStatus: "no-recording", transcript: expect.stringContaining("Agent: ") });
    expect(firstCall(9)).not.toHaveProperty("url");

    const audio = await recordingRoute(new Request(firstCall(2).url!));
    expect(audio.status).toBe(200);
    expect(audio.headers.get("content-type")).toBe("audio/wav");
    const bytes = Buffer.from(await audio.arrayBuffer());
    expect(bytes.subarray(0, 4).toString("ascii")).toBe("RIFF");
    expect(bytes.subarray(8, 12).toString("ascii")).toBe("WAVE");
    expect(Number(audio.headers.get("content-length"))).toBe(bytes.length);
  });
});
