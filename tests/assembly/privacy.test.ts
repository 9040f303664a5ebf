/**
 * Disclosures, recording consent, redaction and retention in the app as shipped (issue 30): the built app behind
 * `npm start` with VOICE_ENGINE=twilio-realtime against the project's Twilio and OpenAI simulators (run here, as in
 * voice-twilio.test.ts). What the callee heard is read from the Twilio simulator's own tracks; what the app kept from
 * the API, the signed webhooks, the events feed, the console's tRPC, the app's log and its embedded PostgreSQL.
 */
import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { speechAudio, type OpenAiSimulator } from "@/server/simulators/openai-realtime";
import type { TwilioSimulator } from "@/server/simulators/twilio";
import { loadClip } from "@/server/simulators/voice-clips/clips";
import { decodeUlawSample } from "@/server/voice/g711";
import { type BuiltApp, type ConsoleSession, listenForWebhooks, signIn, startVoiceApp, VOICE_PUBLIC_BASE_URL, waitFor, type WebhookListener } from "./harness";

const PUBLIC_BASE_URL = VOICE_PUBLIC_BASE_URL;
const CONSENT = { type: "express_written", capturedAt: "2026-10-02T09:30:00-04:00", source: "https://example.com/signup (form v3)" };

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let webhooks: WebhookListener;
let admin: ConsoleSession;
let sql: postgres.Sql;
let agentId: string;

async function enroll(phoneNumber: string) {
  const res = await app.api(`/agents/${agentId}/schedule/sequence`, {
    body: { name: "Jane Doe", phoneNumber, timezone: "America/Los_Angeles", toEmailAddress: "jane.doe@example.org", company_name: "Acme Corp", consent: CONSENT },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

async function webhookFor(sequenceId: string) {
  return waitFor(() => webhooks.payloads().find((payload) => payload.sequence?.sequenceId === sequenceId), {
    timeoutMs: 150_000,
    label: `the webhook of ${sequenceId}`,
    explain: () => ({ log: app.logs().filter((line) => line.level === 40 || line.level === 50).slice(-20) }),
  });
}

/** The whole events feed of the primary organization (it holds the demo history too: paged). */
async function allEvents(): Promise<Array<{ id: string; data: Record<string, any> }>> {
  const events: Array<{ id: string; data: Record<string, any> }> = [];
  let after: string | null = null;
  for (;;) {
    const res = await app.api(`/events?limit=500${after ? `&after=${encodeURIComponent(after)}` : ""}`);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    events.push(...res.body.events);
    if (!res.body.hasMore) return events;
    after = res.body.nextCursor;
  }
}

/** Where `needle` (µ-law) starts inside `haystack`, by a 40 ms window from its middle; -1 when absent. */
function find(haystack: Buffer, needle: Buffer): number {
  const at = Math.floor(needle.length / 2);
  const found = haystack.indexOf(needle.subarray(at, at + 320));
  return found < 0 ? -1 : found - at;
}

/** The 16-bit samples of one channel of a WAV (the app's and Twilio's recordings are 16-bit PCM). */
function channel(wav: Buffer, index: number): Int16Array {
  const channels = wav.readUInt16LE(22);
  const frames = (wav.length - 44) / (2 * channels);
  const out = new Int16Array(frames);
  for (let i = 0; i < frames; i += 1) out[i] = wav.readInt16LE(44 + (i * channels + index) * 2);
  return out;
}

function rms(samples: Int16Array, fromMs: number, toMs: number): number {
  const from = Math.max(0, Math.floor(fromMs * 8));
  const to = Math.min(samples.length, Math.ceil(toMs * 8));
  let sum = 0;
  for (let i = from; i < to; i += 1) sum += samples[i]! * samples[i]!;
  return to > from ? Math.sqrt(sum / (to - from)) : 0;
}

function containsClip(samples: Int16Array, clip: Buffer): boolean {
  const decoded = Int16Array.from(clip, (byte) => decodeUlawSample(byte));
  const at = Math.floor(decoded.length / 2);
  const probe = Buffer.from(decoded.slice(at, at + 320).buffer);
  return Buffer.from(samples.buffer).indexOf(probe) >= 0;
}

async function recordingOf(callId: string): Promise<{ entry: Record<string, any>; wav: Buffer | null }> {
  const res = await app.api(`/recordings/${callId}?includeTranscript=true`);
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  const entry = res.body.recording;
  if (entry.recordingStatus !== "downloaded") return { entry, wav: null };
  const audio = await fetch(String(entry.url).replace(PUBLIC_BASE_URL, app.origin));
  expect(audio.status).toBe(200);
  return { entry, wav: Buffer.from(await audio.arrayBuffer()) };
}

beforeAll(async () => {
  ({ app, twilio, openai } = await startVoiceApp({ twilioSpeed: 2 }));
  agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
  webhooks = await listenForWebhooks(app);
  admin = await signIn(app, app.demo.dashboard.users.find((user) => user.role === "admin")!, app.primary.orgId);
  const runtime = JSON.parse(readFileSync(path.join(app.dataDir, "pg-runtime.json"), "utf8")) as { url: string };
  sql = postgres(runtime.url, { max: 2, onnotice: () => {} });
}, 300_000);

afterAll(async () => {
  await sql?.end();
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
  await webhooks?.close();
});

describe("disclosures, recording consent, redaction and retention (npm start, twilio-realtime)", () => {
  it("California hears the identification and the recording notice before anything else; Texas only the identification; the audit trail agrees everywhere", async () => {
    const california = "+14155550141";
    const texas = "+15125550141";
    const [caSequence, txSequence] = [await enroll(california), await enroll(texas)];
    const [caHook, txHook] = [await webhookFor(caSequence), await webhookFor(txSequence)];

    const ca = caHook.disclosures;
    expect(ca.identification).toMatchObject({ spoken: true, via: "call" });
    expect(ca.identification.text).toContain(app.primary.name);
    expect(ca.recordingNotice).toMatchObject({ required: true, reason: "all-party-consent-state", jurisdictions: ["US-CA"], spoken: true });
    expect(ca.recordingNotice.offsetMs).toBeGreaterThan(ca.identification.offsetMs);
    expect(ca.recording.state).toBe("on");
    expect(ca.consent).toMatchObject({ type: "express_written", source: CONSENT.source });
    const tx = txHook.disclosures;
    expect(tx.identification.spoken).toBe(true);
    expect(tx.recordingNotice).toMatchObject({ required: false, reason: null, jurisdictions: [], spoken: false, text: "" });

    // What the callee heard (the Twilio simulator's track of what was played): exactly the texts, spoken by the TTS
    // model, both before the agent's first turn.
    const caPlayed = twilio.callTo(california)!.tracks().played;
    const identificationAt = find(caPlayed, speechAudio(ca.identification.text));
    const noticeAt = find(caPlayed, speechAudio(ca.recordingNotice.text));
    const introAt = find(caPlayed, loadClip("agent.intro"));
    expect(identificationAt, "identification played").toBeGreaterThanOrEqual(0);
    expect(noticeAt, "notice after the identification").toBeGreaterThan(identificationAt);
    expect(introAt, "the agent's first turn after both").toBeGreaterThan(noticeAt + speechAudio(ca.recordingNotice.text).length - 1);
    const txPlayed = twilio.callTo(texas)!.tracks().played;
    expect(find(txPlayed, speechAudio(tx.identification.text))).toBeGreaterThanOrEqual(0);
    expect(find(txPlayed, speechAudio(ca.recordingNotice.text)), "no notice in Texas").toBe(-1);
    expect(find(txPlayed, loadClip("agent.intro"))).toBeGreaterThan(find(txPlayed, speechAudio(tx.identification.text)));
    expect(openai.speechRequests.map((request) => request.input)).toEqual(expect.arrayContaining([ca.identification.text, ca.recordingNotice.text]));

    // The same trail in the metadata, the events feed and the consent export.
    const metadata = await app.api(`/conversations/metadata/${caSequence}`);
    expect(metadata.body.metadata[0].disclosures).toEqual(ca);
    const events = await allEvents();
    expect(events.find((event) => event.data.callId === caHook.callId)!.data.disclosures).toEqual(ca);
    const exported = await admin.trpc("consent.export", { from: new Date(Date.now() - 3_600_000).toISOString(), to: new Date(Date.now() + 60_000).toISOString(), after: null }, { method: "GET" });
    expect(exported.status, JSON.stringify(exported.body)).toBe(200);
    const record = exported.body.result.data.records.find((row: { sequenceId: string }) => row.sequenceId === caSequence);
    expect(record.calls).toEqual([expect.objectContaining({ callId: caHook.callId, disclosures: ca })]);
    // The transcript starts with them, word for word.
    expect(caHook.callResult.transcription).toContain(`Agent: ${ca.identification.text}\nAgent: ${ca.recordingNotice.text}`);
  });

  it("a contact who says “don't record this” gets the rest of the call unrecorded, and the call record says so", async () => {
    const number = "+14155550121";
    const sequenceId = await enroll(number);
    const payload = await webhookFor(sequenceId);
    expect(payload.disclosures.recording).toMatchObject({ state: "declined", reason: expect.any(String) });
    expect(payload.disclosures.recording.offsetMs).toBeGreaterThan(payload.disclosures.recordingNotice.offsetMs);
    const call = twilio.callTo(number)!;
    expect(call.events.some((event) => event.startsWith("recording-stopped@"))).toBe(true);
    // The call went on after the objection: the agent confirmed, the callee answered, the agent said goodbye.
    expect(payload.callResult.transcription).toContain("I have stopped the recording");
    expect(payload.callResult.transcription).toContain("Not right now, sorry.");
    expect(containsClip(Int16Array.from(call.tracks().callee, (byte) => decodeUlawSample(byte)), loadClip("callee.not-now"))).toBe(true);
    // The kept recording ends at the objection: what was said after it is not in it.
    const { entry, wav } = await recordingOf(payload.callId);
    expect(entry.recordingStatus).toBe("downloaded");
    const callee = channel(wav!, 0);
    expect(containsClip(callee, loadClip("callee.dont-record"))).toBe(true);
    expect(containsClip(callee, loadClip("callee.not-now"))).toBe(false);
    expect(callee.length / 8000).toBeLessThan(call.tracks().callee.length / 8000 - 3);
    // Twilio's copy is deleted once ours is stored.
    expect(call.recordingDeleted).toBe(true);
  });

  it("a card number and an SSN read out: in no table row, log line, webhook, events feed entry or analysis request; silence in the recording there", async () => {
    const number = "+14155550131";
    const sequenceId = await enroll(number);
    const payload = await webhookFor(sequenceId);
    const secrets = [/4111[\s-]?1111[\s-]?1111[\s-]?1111/, /536[\s-]?22[\s-]?8471/];
    expect(payload.callResult.transcription).toContain("My card number is [redacted:card] and my social security number is [redacted:ssn].");

    const tables = await sql<{ table_name: string }[]>`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`;
    expect(tables.length).toBeGreaterThan(20);
    for (const { table_name } of tables) {
      for (const secret of secrets) {
        const [hit] = await sql.unsafe(`select count(*)::int as n from "${table_name}" as r where r::text ~ $1`, [secret.source]);
        expect(hit!.n, `${table_name} holds ${secret}`).toBe(0);
      }
    }
    const logs = app.logs().map((line) => JSON.stringify(line));
    const everywhere = {
      logs: logs.join("\n"),
      webhooks: JSON.stringify(webhooks.payloads()),
      events: JSON.stringify(await allEvents()),
      analysis: JSON.stringify(openai.chatRequests),
      metadata: JSON.stringify((await app.api(`/conversations/metadata/${sequenceId}`)).body),
    };
    for (const [where, text] of Object.entries(everywhere)) for (const secret of secrets) expect(secret.test(text), `${where} holds ${secret}`).toBe(false);
    expect(everywhere.analysis).toContain("[redacted:card]");

    // The recording: silent over the redacted spans, which held speech in what the callee said.
    const [row] = await sql<{ redacted_spans: Array<{ startMs: number; endMs: number; categories: string[] }> }[]>`select redacted_spans from calls where id = ${payload.callId}`;
    expect(row!.redacted_spans.length).toBeGreaterThan(0);
    expect(row!.redacted_spans.flatMap((span) => span.categories).sort()).toEqual(["card", "ssn"]);
    const { wav } = await recordingOf(payload.callId);
    const said = Int16Array.from(twilio.callTo(number)!.tracks().callee, (byte) => decodeUlawSample(byte));
    const kept = [channel(wav!, 0), channel(wav!, 1)];
    const cardClip = loadClip("callee.card-and-ssn");
    const saidAt = find(twilio.callTo(number)!.tracks().callee, cardClip) / 8;
    const span = row!.redacted_spans[0]!;
    // The span covers the whole utterance as the callee said it (the recording and the callee's track share a clock).
    expect(span.startMs).toBeLessThanOrEqual(saidAt);
    expect(span.endMs).toBeGreaterThanOrEqual(saidAt + cardClip.length / 8);
    expect(rms(said, span.startMs, span.endMs)).toBeGreaterThan(500);
    for (const samples of kept) expect(rms(samples, span.startMs, span.endMs)).toBeLessThan(20);
    // Speech elsewhere is kept.
    expect(rms(kept[0]!, 0, span.startMs)).toBeGreaterThan(100);
  });

  it("retention of one day: once the day has passed, no recording and an empty transcript with the reason, and no 500", async () => {
    const set = await admin.trpc("organizations.updatePrivacySettings", { retentionDays: 1 });
    expect(set.status, JSON.stringify(set.body)).toBe(200);
    const invalid = await admin.trpc("organizations.updatePrivacySettings", { retentionDays: 731 });
    expect(invalid.status).toBe(400);
    try {
      const sequenceId = await enroll("+15125550148");
      const payload = await webhookFor(sequenceId);
      expect((await recordingOf(payload.callId)).entry.recordingStatus).toBe("downloaded");
      // The clock moves on: the call ended two days ago, and the daily retention run is due now.
      await sql`update calls set ended_at = ended_at - interval '2 days' where id = ${payload.callId}`;
      await sql`update inngest_cron_schedules set next_at = now() where function_id like '%recording-retention'`;
      // The entry alone while waiting: its audio may be deleted between reading the entry and fetching the file.
      const entry = await waitFor(
        async () => {
          const res = await app.api(`/recordings/${payload.callId}?includeTranscript=true`);
          expect(res.status, JSON.stringify(res.body)).toBe(200);
          return res.body.recording.removedReason === "retention" ? res.body.recording : null;
        },
        { timeoutMs: 90_000, label: "the retention run" },
      );
      expect(entry).toMatchObject({ recordingStatus: "no-recording", transcript: "", removedReason: "retention" });
      expect(entry.url).toBeUndefined();
      const listed = await app.api("/recordings", { body: { sequenceIds: [sequenceId], includeTranscripts: true } });
      expect(listed.status).toBe(200);
      expect(listed.body.recordings[0].calls[0]).toMatchObject({ recordingStatus: "no-recording", transcript: "", removedReason: "retention" });
      const metadata = await app.api(`/conversations/metadata/${sequenceId}?includeRecording=true`);
      expect(metadata.status).toBe(200);
      expect(metadata.body.metadata[0]).toMatchObject({ contentRemoved: { reason: "retention" }, callResult: { transcription: "", summary: "" } });
      expect(metadata.body.metadata[0].recordingUrl).toBeUndefined();
      expect(metadata.body.metadata[0].disclosures.identification.spoken).toBe(true);
      const [lines] = await sql<{ n: number }[]>`select count(*)::int as n from call_transcript_lines where call_id = ${payload.callId}`;
      expect(lines!.n).toBe(0);
      const events = await allEvents();
      expect(events.find((event) => event.data.callId === payload.callId)!.data.callResult.transcription).toBe("");
    } finally {
      await admin.trpc("organizations.updatePrivacySettings", { retentionDays: null });
    }
  });
});
