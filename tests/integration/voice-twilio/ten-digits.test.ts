import { and, asc, eq } from "drizzle-orm";
import { Webhook } from "standardwebhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as recordingRoute } from "@/app/api/recordings/[...key]/route";
import { callTranscriptLines, calls, creditTransactions, optOuts, sequences, twilioCalls } from "@/db/schema";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { connectProvider } from "@/server/services/calendar/provider-connection";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { clipText } from "@/server/simulators/voice-clips/clips";
import { wavChannelRms } from "@/server/voice/g711";
import { APOLOGY_MESSAGE } from "@/server/carriers/twilio/twiml";
import { failCall } from "@/server/services/call-engine/finalize-call";
import { listTranscriptLines } from "@/server/services/calls/list-transcript-lines";
import { apiClient } from "@/tests/helpers/api";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestOrganization, testPoolNumbers } from "@/tests/factories";
import { AGENT_DEFINITIONS, callStep } from "../call-engine/harness";
import { useRecordingsSandbox } from "../conversations/fixtures";
import { useChiliPiperSimulator } from "../meetings/helpers";
import { createLoopbackEndpoint, startReceiver, useTestEncryptionKey } from "../webhooks/fixtures";
import { startVoiceStack, type VoiceStack } from "./harness";

useRecordingsSandbox();
useTestEncryptionKey();
const db = useTestDb();
const api = apiClient(db);
const chiliPiper = useChiliPiperSimulator();
let stack: VoiceStack;

beforeAll(async () => {
  // Media at twice real time: faster still, a starved CPU (a full suite on two cores) breaks the conversations' timing.
  stack = await startVoiceStack(db, { speed: 2 });
});
afterAll(async () => {
  await stack?.stop();
});

const VOICEMAIL_MESSAGE = clipText("tts.voicemail");

/** An organization connected to the calendar simulator, a webhook endpoint, and an ACTIVE booking agent (link mode). */
async function organizationWithAgent() {
  const { organization, apiKey } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  stack.watchdogScope.push(organization.id);
  await connectProvider(db, { organizationId: organization.id, apiKey: chiliPiper.current.createApiKey("full-access") });
  const bookingConfig = await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") });
  const agent = await createTestAgent(db, organization.id, {
    name: "Ava",
    phoneNumbers: await testPoolNumbers(db, organization.id, ["202"]),
    steps: [callStep()],
    bookingConfig,
    prompt: "You are Ava from Acme. Offer a short follow-up meeting.",
    // The agent lets the callee speak first (issue 24's flow); greeting on answer is covered by call-quality.test.ts.
    voiceSettings: { voicemailMessage: VOICEMAIL_MESSAGE, voice: "cedar", ringTimeoutSeconds: 25, maxCallSeconds: 300, greetingMode: "wait-for-callee" },
    ...AGENT_DEFINITIONS,
  });
  const receiver = await startReceiver();
  const { secret } = await createLoopbackEndpoint(db, organization.id, receiver.url);
  return { organization, apiKey, agent, receiver, secret };
}

async function enroll(apiKey: string, agentId: string, phoneNumber: string) {
  const res = await api(`/agents/${agentId}/schedule/sequence`, {
    method: "POST",
    key: apiKey,
    body: { name: "Jane Doe", phoneNumber, timezone: "America/New_York", toEmailAddress: `jane.${phoneNumber.slice(-4)}@example.org`, company_name: "Acme Corp", crm_ref: `CRM-${phoneNumber.slice(-2)}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

const EXPECTED: Record<number, string> = {
  0: "Goal Completed",
  1: "Goal Not Completed",
  2: "Voicemail",
  3: "Busy",
  4: "No Conversation",
  5: "Opted Out",
  6: "Invalid Phone Number",
  7: "Failed",
  8: "Goal Completed",
  9: "Goal Not Completed",
};

describe("VOICE_ENGINE=twilio-realtime end to end (Twilio and OpenAI simulators, official client packages)", () => {
  it("the ten outcome digits: POST /schedule/sequence → Twilio call → Realtime conversation → analysis → signed call-result webhook", async () => {
    const { organization, apiKey, agent, receiver, secret } = await organizationWithAgent();
    const sequenceByDigit = new Map<number, string>();
    for (let digit = 0; digit <= 9; digit += 1) sequenceByDigit.set(digit, await enroll(apiKey, agent.id, `+1202555017${digit}`));
    await stack.runUntil(() => receiver.requests.length >= 10, { timeoutMs: 100_000, label: "ten call-result webhooks" });

    // Ten webhooks, one per call, each verifiable with the endpoint's secret, with the table's result type.
    const payloads = receiver.requests.map((request) => new Webhook(secret).verify(request.body, request.headers) as Record<string, any>);
    expect(new Set(payloads.map((payload) => payload.callId)).size).toBe(10);
    for (const [digit, sequenceId] of sequenceByDigit) {
      const payload = payloads.find((candidate) => candidate.sequence.sequenceId === sequenceId)!;
      expect(payload, `digit ${digit}`).toBeDefined();
      if (payload.callResult.resultType !== EXPECTED[digit]) {
        // What each side did, for a failure's post-mortem.
        const simCall = stack.twilio.callTo(`+1202555017${digit}`);
        const heard = stack.openai.sessions.map((session) => ({ heard: session.heard, events: session.clientEvents.filter((type) => type !== "input_audio_buffer.append") }));
        const explained = { transcript: payload.callResult.transcription, twilio: { events: simCall?.events, answeredBy: simCall?.answeredBy, received: simCall?.streamMessages.map((message) => message.event).filter((event) => event !== "media").slice(0, 40) }, realtime: heard };
        expect(payload.callResult.resultType, `digit ${digit}: ${payload.callResult.summary}\n${JSON.stringify(explained, null, 1)}`).toBe(EXPECTED[digit]);
      }
    }
    const callOf = async (digit: number) => (await db.select().from(calls).where(eq(calls.sequenceId, sequenceByDigit.get(digit)!)))[0]!;

    // Conversations: both sides in the transcript, stored line by line as they happened.
    for (const digit of [0, 1, 5, 8, 9]) {
      const call = await callOf(digit);
      // The identification disclosure, word for word, before the agent's first turn (docs/compliance.md).
      expect(call.transcript, `digit ${digit}`).toMatch(/^Customer: Hello, who is this\?\nAgent: Hello, this is an automated AI assistant calling on behalf of .+\nAgent: Hi, this is Ava/);
      // On the stream's clock the lines are the conversation's turns in order. (They are stored as each is complete: a
      // contact's transcription may complete after the agent has started its answer, so storage order is not turn order.)
      const lines = await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, call.id)).orderBy(asc(callTranscriptLines.offsetMs), asc(callTranscriptLines.id));
      expect(lines.map((line) => line.speaker).slice(0, 5), `digit ${digit}: ${JSON.stringify(lines.map((line) => [line.speaker, line.offsetMs]))}`).toEqual(["customer", "agent", "agent", "customer", "agent"]);
      expect(lines.every((line) => Number.isInteger(line.offsetMs) && line.offsetMs >= 0)).toBe(true);
    }
    // A console follows a call by reading the lines after its cursor (in the order they were stored): every line once,
    // none twice; another organization reads nothing.
    const sorted = (texts: string[]) => [...texts].sort();
    const first = await listTranscriptLines(db, { organizationId: organization.id, callId: (await callOf(1)).id, limit: 2 });
    expect(first.lines).toHaveLength(2);
    const rest = await listTranscriptLines(db, { organizationId: organization.id, callId: (await callOf(1)).id, after: first.nextCursor! });
    const callOneLines = await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, (await callOf(1)).id)).orderBy(asc(callTranscriptLines.offsetMs), asc(callTranscriptLines.id));
    expect(sorted([...first.lines, ...rest.lines].map((line) => line.text))).toEqual(sorted(callOneLines.map((line) => line.text)));
    expect(callOneLines.slice(2).map((line) => line.text)).toEqual([clipText("agent.intro"), clipText("callee.not-now"), clipText("agent.no-problem")]);
    expect((await listTranscriptLines(db, { organizationId: "org.someone-else", callId: (await callOf(1)).id })).lines).toEqual([]);
    const identification = callOneLines[1]!.text;
    expect(identification).toMatch(/^Hello, this is an automated AI assistant calling on behalf of /);
    expect((await callOf(4)).transcript).toBe(`Customer: Hello?\nAgent: ${identification}\nAgent: ${clipText("agent.intro")}\nAgent: ${clipText("agent.still-there")}`);
    // The machine's greeting is what the callee side said; the agent said nothing to it, then left its message (who
    // is calling first).
    expect((await callOf(2)).transcript).toBe(`Customer: ${clipText("callee.voicemail-greeting")}\nAgent: ${identification} ${VOICEMAIL_MESSAGE}`);
    for (const digit of [3, 6, 7]) expect((await callOf(digit)).transcript, `digit ${digit}`).toBeNull();

    // The Realtime session got the agent's voice, its prompt, the contact's name, variables and local time, and the tools.
    const session = stack.openai.sessions.find((candidate) => candidate.heard.includes("callee.yes-book"))!;
    expect(session.voice).toBe("cedar");
    expect(session.instructions).toContain("You are Ava from Acme.");
    expect(session.instructions).toContain("Jane Doe");
    expect(session.instructions).toContain("company_name: Acme Corp");
    expect(session.instructions).toMatch(/\(America\/New_York\)/);
    expect(session.toolNames.sort()).toEqual(["book_meeting", "end_call", "opt_out", "press_digits", "report_answered_by", "stop_recording"]);
    expect(session.config).toMatchObject({ audio: { input: { format: { type: "audio/pcmu" } }, output: { format: { type: "audio/pcmu" } } } });

    // Analysis: the LLM analyser (openai package, strict structured outputs) read the connected calls' transcripts.
    expect(stack.openai.chatRequests.length).toBeGreaterThanOrEqual(7);
    for (const request of stack.openai.chatRequests) expect(request.response_format).toMatchObject({ type: "json_schema", json_schema: { strict: true } });

    // Digit 0: the meeting was booked through the tool, by the agent's booking mode.
    const booked = await callOf(0);
    expect(booked.followUpMeetingDetails).toMatchObject({ hostEmail: expect.stringMatching(/@/), meetingLink: expect.stringMatching(/^https:/) });
    expect(booked.crmSchedulingDetails).toMatchObject({ provider: "chili-piper", mode: "link", status: "booked" });
    expect(booked.agentActions).toContainEqual(expect.objectContaining({ actionKey: "book_meeting" }));
    expect((await callOf(8)).followUpMeetingDetails).toBeNull();

    // Digit 5: the opt-out was recorded by the tool; the number is suppressed organization-wide.
    const optedOut = await callOf(5);
    expect(optedOut.agentActions).toContainEqual(expect.objectContaining({ actionKey: "opt_out" }));
    expect(await db.select().from(optOuts).where(and(eq(optOuts.organizationId, organization.id), eq(optOuts.phoneNumber, "+12025550175")))).toHaveLength(1);
    const again = await api(`/agents/${agent.id}/schedule/sequence`, { method: "POST", key: apiKey, body: { name: "Jane", phoneNumber: "+12025550175", company_name: "Acme" } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("OPTED_OUT");

    // Digit 6: the number was refused at dialing (Twilio 21211); the sequence failed.
    const [invalidSequence] = await db.select().from(sequences).where(eq(sequences.id, sequenceByDigit.get(6)!));
    expect(invalidSequence!.lifecycleStatus).toBe("failed");
    const [invalidTwilio] = await db.select().from(twilioCalls).where(eq(twilioCalls.callId, (await callOf(6)).id));
    expect(invalidTwilio!.errorCode).toBe(21211);

    // Digit 2: voicemail after the beep: the agent's message spoken by Twilio, no conversation.
    const voicemailCall = stack.twilio.callTo("+12025550172")!;
    expect(voicemailCall.answeredBy).toBe("machine_end_beep");
    expect(voicemailCall.said).toEqual([expect.stringContaining("an automated AI assistant calling on behalf of"), VOICEMAIL_MESSAGE]);

    // Recordings: dual-channel WAV with speech on both channels, through the API's signed link; none for 3, 6, 7, 9.
    const listed = await api("/recordings", { method: "POST", key: apiKey, body: { sequenceIds: [...sequenceByDigit.values()], includeTranscripts: true } });
    expect(listed.status).toBe(200);
    const entry = (digit: number) => listed.body.recordings.find((r: { sequenceId: string }) => r.sequenceId === sequenceByDigit.get(digit)).calls[0];
    for (const digit of [0, 1, 2, 4, 5, 8]) {
      expect(entry(digit).recordingStatus, `digit ${digit}`).toBe("downloaded");
      const audio = await recordingRoute(new Request(entry(digit).url));
      expect(audio.status).toBe(200);
      const wav = new Uint8Array(await audio.arrayBuffer());
      expect(Buffer.from(wav).readUInt16LE(22), `digit ${digit} channels`).toBe(2);
      const [callee, agentSide] = wavChannelRms(wav);
      expect(callee, `digit ${digit} callee channel`).toBeGreaterThan(200);
      expect(agentSide, `digit ${digit} agent channel`).toBeGreaterThan(200);
    }
    for (const digit of [3, 6, 7, 9]) expect(entry(digit).recordingStatus, `digit ${digit}`).toBe("no-recording");
    expect(entry(9).transcript).toContain("Customer: Not right now");

    // Credits: connected calls only, once each.
    const ledger = await db.select().from(creditTransactions).where(eq(creditTransactions.organizationId, organization.id));
    expect(ledger.map((row) => row.callId).sort()).toEqual((await Promise.all([0, 1, 2, 4, 5, 8, 9].map(callOf))).map((call) => call.id).sort());

    // What the watchdog asks before it gives up on a silent call: Twilio's Call resource says each call is over, with
    // the disposition its callbacks gave; a SID Twilio never issued is unknown.
    for (let digit = 0; digit <= 9; digit += 1) {
      const call = await callOf(digit);
      const state = await stack.engine.callState({ callId: call.id, providerCallId: call.providerCallId! });
      expect(state, `digit ${digit}`).toMatchObject({ state: "ended", disposition: call.disposition });
    }
    const someCall = await callOf(1);
    expect(await stack.engine.callState({ callId: someCall.id, providerCallId: `CA${"0".repeat(32)}` })).toEqual({ state: "unknown" });
    await db.update(twilioCalls).set({ callSid: `CA${"f".repeat(32)}` }).where(eq(twilioCalls.callId, someCall.id));
    expect(await stack.engine.callState({ callId: someCall.id, providerCallId: `CA${"f".repeat(32)}` })).toEqual({ state: "unknown" });
    await db.update(twilioCalls).set({ callSid: someCall.providerCallId }).where(eq(twilioCalls.callId, someCall.id));

    // A tampered Twilio callback (a valid signature, one parameter changed) is refused and changes nothing;
    // a replayed genuine one is accepted and changes nothing either.
    const completed = stack.twilio.callbacks.find((callback) => callback.kind === "status" && callback.params.To === "+12025550171" && callback.params.CallStatus === "completed")!;
    const before = await db.select().from(twilioCalls).where(eq(twilioCalls.callSid, completed.params.CallSid!));
    const tampered = await stack.postCallback(completed.url, { ...completed.params, CallStatus: "busy", CallDuration: "0" }, completed.signature);
    expect(tampered.status).toBe(403);
    expect((await stack.postCallback(completed.url, completed.params, null)).status).toBe(403);
    const replayed = await stack.postCallback(completed.url, completed.params, completed.signature);
    expect(replayed.status).toBe(200);
    expect(await db.select().from(twilioCalls).where(eq(twilioCalls.callSid, completed.params.CallSid!))).toEqual(before);
    await stack.runUntil(async () => true);
    expect((await callOf(1)).resultType).toBe("Goal Not Completed");
    expect(receiver.requests).toHaveLength(10);
  }, 150_000);

  it("a Realtime outage mid-call: the callee hears an apology, the call ends Failed exactly once (no charge, one webhook)", async () => {
    const { organization, apiKey, agent, receiver } = await organizationWithAgent();
    const sequenceId = await enroll(apiKey, agent.id, "+12025550191");
    await stack.runUntil(async () => {
      const [call] = await db.select().from(calls).where(eq(calls.sequenceId, sequenceId));
      if (!call) return false;
      return (await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, call.id))).length >= 2;
    }, { timeoutMs: 60_000, label: "the conversation to start" });
    stack.openai.dropSessions();
    await stack.runUntil(() => receiver.requests.length >= 1, { timeoutMs: 60_000, label: "the call-result webhook" });
    const [call] = await db.select().from(calls).where(eq(calls.sequenceId, sequenceId));
    expect(call!.resultType).toBe("Failed");
    expect(call!.providerError).toMatch(/realtime model was lost/);
    expect(stack.twilio.callTo("+12025550191")!.said).toEqual([APOLOGY_MESSAGE]);
    expect(call!.transcript).toContain("Customer: Hello, who is this?");
    // Exactly once: one analysis announcement, one webhook, no charge — even after more time and the watchdog's look.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    await stack.runUntil(async () => true);
    expect(stack.analyzedCallIds.filter((id) => id === call!.id)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
    expect(await db.select().from(creditTransactions).where(eq(creditTransactions.organizationId, organization.id))).toHaveLength(0);
  }, 120_000);

  it("the instance holding the conversation dies mid-call: Twilio's completed callback still ends the call, once", async () => {
    const { organization, apiKey, agent, receiver } = await organizationWithAgent();
    const sequenceId = await enroll(apiKey, agent.id, "+12025550161");
    let callId = "";
    await stack.runUntil(async () => {
      const [call] = await db.select().from(calls).where(eq(calls.sequenceId, sequenceId));
      callId = call?.id ?? "";
      // Hello, the identification, the agent's first turn.
      return !!call && (await db.select().from(callTranscriptLines).where(eq(callTranscriptLines.callId, call.id))).length >= 3;
    }, { timeoutMs: 60_000, label: "the conversation to start" });
    // Asked mid-conversation, Twilio's Call resource says the call is in the air: the watchdog would wait.
    const [inTheAir] = await db.select().from(calls).where(eq(calls.id, callId));
    expect(await stack.engine.callState({ callId, providerCallId: inTheAir!.providerCallId! })).toEqual({ state: "active" });
    stack.engine.media.live.get(callId)!.abort({ crash: true });
    await stack.runUntil(() => receiver.requests.length >= 1, { timeoutMs: 60_000, label: "the call-result webhook" });
    const [call] = await db.select().from(calls).where(eq(calls.id, callId));
    // What was said before the crash was stored as it happened; the call ended when Twilio said so.
    expect(call!.transcript).toMatch(/^Customer: Hello, who is this\?\nAgent: Hello, this is an automated AI assistant .+\nAgent: Hi, this is Ava/);
    expect(["Goal Not Completed", "No Conversation"]).toContain(call!.resultType);
    const [twilioRow] = await db.select().from(twilioCalls).where(eq(twilioCalls.callId, callId));
    expect(twilioRow).toMatchObject({ status: "completed", streamEndedAt: null, endedReportedAt: expect.any(Date) });
    // The watchdog's way of ending a call finds nothing left to do; the callbacks replayed change nothing.
    expect((await failCall(db, { callId, now: new Date(), reason: "watchdog" })).finalized).toBe(false);
    for (const callback of stack.twilio.callbacks.filter((c) => c.params.CallSid === twilioRow!.callSid && c.kind !== "twiml")) {
      expect((await stack.postCallback(callback.url, callback.params, callback.signature)).status).toBe(200);
    }
    await stack.runUntil(async () => true);
    expect(stack.analyzedCallIds.filter((id) => id === callId)).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
    expect(await db.select().from(creditTransactions).where(eq(creditTransactions.organizationId, organization.id))).toHaveLength(1);
  }, 120_000);
});
