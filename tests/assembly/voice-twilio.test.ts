/**
 * `VOICE_ENGINE=twilio-realtime` in the app as shipped: the built app behind `npm start`, pointed at the project's
 * Twilio and OpenAI Realtime simulators (run here, in the test process, as the providers would run elsewhere), driven
 * through /api/v1 and the console's /api/trpc, the call results read from the signed webhook. The Twilio simulator
 * reaches the app's public URL (https://voice.example.test) through a "tunnel" to the app's loopback port.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenAiSimulator } from "@/server/simulators/openai-realtime";
import type { TwilioSimulator } from "@/server/simulators/twilio";
import { clipText } from "@/server/simulators/voice-clips/clips";
import { wavChannelRms } from "@/server/voice/g711";
import { draftFromView } from "@/app/(dashboard)/[orgId]/agents/_components/agent-draft";
import { type BuiltApp, listenForWebhooks, signIn, startVoiceApp, VOICE_PUBLIC_BASE_URL, waitFor, type WebhookListener } from "./harness";

const PUBLIC_BASE_URL = VOICE_PUBLIC_BASE_URL;
const VOICEMAIL_MESSAGE = clipText("tts.voicemail");

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let webhooks: WebhookListener;
let agentId: string;

const payloads = () => webhooks.payloads();

/** Where each simulated call stands (for a failure message). */
function callsSoFar() {
  return [...twilio.calls.values()].map((call) => ({ to: call.to, status: call.status, answeredBy: call.answeredBy, said: call.said, events: call.events.slice(0, 30), received: call.streamMessages.length }));
}

async function enroll(phoneNumber: string, name = "Jane Doe") {
  const res = await app.api(`/agents/${agentId}/schedule/sequence`, {
    body: { name, phoneNumber, timezone: "America/New_York", toEmailAddress: `jane.${phoneNumber.slice(-4)}@example.org`, company_name: "Acme Corp", crm_ref: `CRM-${phoneNumber.slice(-3)}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

async function webhookFor(sequenceId: string, label: string) {
  return waitFor(() => payloads().find((payload) => payload.sequence?.sequenceId === sequenceId), { timeoutMs: 120_000, label, explain: () => ({ calls: callsSoFar(), log: app.logs().slice(-30) }) });
}

beforeAll(async () => {
  ({ app, twilio, openai } = await startVoiceApp({ twilioSpeed: 2 }));
  agentId = app.primary.agents.find((agent) => agent.role === "link")!.agentId;
  webhooks = await listenForWebhooks(app);
  // The console: the agent's voicemail message.
  const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
  const session = await signIn(app, admin, app.primary.orgId);
  const config = await session.trpc("agents.getConfig", { agentId }, { method: "GET" });
  expect(config.status, JSON.stringify(config.body)).toBe(200);
  // The document as the console's editor sends it back.
  const updated = await session.trpc("agents.update", { ...draftFromView(config.body.result.data), agentId, voicemailMessage: VOICEMAIL_MESSAGE });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
  await webhooks?.close();
});

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

describe("the built app with VOICE_ENGINE=twilio-realtime (npm start, Twilio and Realtime simulators)", () => {
  it("the ten outcome digits: /api/v1 enrollment → Twilio → media stream ↔ Realtime → analysis → signed webhook", async () => {
    // A Twilio callback before the first stream: Next.js has routed a request (and, before the fix, took over upgrades).
    const unsigned = await fetch(`${app.origin}/api/voice/twilio/status?callId=call.nope`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "CallSid=CA00" });
    expect(unsigned.status).toBe(403);

    const sequenceByDigit = new Map<number, string>();
    for (let digit = 0; digit <= 9; digit += 1) sequenceByDigit.set(digit, await enroll(`+1202555017${digit}`));
    await waitFor(() => payloads().filter((payload) => [...sequenceByDigit.values()].includes(payload.sequence?.sequenceId)).length >= 10, {
      timeoutMs: 180_000,
      label: "ten call-result webhooks",
      explain: () => ({ webhooks: payloads().map((payload) => [payload.sequence?.sequenceId, payload.callResult?.resultType]), calls: callsSoFar(), log: app.logs().filter((line) => line.level === "warn" || line.level === "error" || line.level === 40 || line.level === 50).slice(-30) }),
    });

    const received = payloads();
    for (const [digit, sequenceId] of sequenceByDigit) {
      const payload = received.filter((candidate) => candidate.sequence.sequenceId === sequenceId);
      expect(payload, `digit ${digit}: one webhook`).toHaveLength(1);
      expect(payload[0]!.callResult.resultType, `digit ${digit}: ${payload[0]!.callResult.summary}`).toBe(EXPECTED[digit]);
    }

    // The conversations held to their end: media both ways, every audio mark echoed, the scripted turns transcribed.
    for (const digit of [0, 1, 5, 8, 9]) {
      const call = twilio.callTo(`+1202555017${digit}`)!;
      const sentMedia = call.streamMessages.filter((message) => message.event === "media").length;
      expect(sentMedia, `digit ${digit}: agent audio frames`).toBeGreaterThan(50);
      // Marks after the agent's audio, which Twilio echoes once played (the bridge waits for them before end_call).
      expect(call.streamMessages.filter((message) => message.event === "mark").length, `digit ${digit}: marks`).toBeGreaterThan(0);
      expect(call.events, `digit ${digit}`).not.toContain("stream-error: 31920 Stream - WebSocket - Handshake Error");
      const metadata = await app.api(`/conversations/metadata/${sequenceByDigit.get(digit)}`);
      expect(metadata.status).toBe(200);
      const transcript = JSON.stringify(metadata.body);
      expect(transcript, `digit ${digit}`).toContain("Hello, who is this?");
      expect(transcript, `digit ${digit}`).toContain("Hi, this is");
    }

    // Digit 0: the meeting was booked through the tool; digit 5: the opt-out was recorded, the number is refused now.
    const booked = received.find((payload) => payload.sequence.sequenceId === sequenceByDigit.get(0))!;
    expect(booked.crmSchedulingDetails, JSON.stringify(booked)).toMatchObject({ provider: "chili-piper", status: "booked" });
    const again = await app.api(`/agents/${agentId}/schedule/sequence`, { body: { name: "Jane", phoneNumber: "+12025550175", company_name: "Acme" } });
    expect(again.status).toBe(409);
    expect(again.body.error).toBe("OPTED_OUT");

    // Digit 2: the agent greets on answer (issue 28) and the machine's greeting cuts it off at once; nothing of the
    // agent after the beep (where a voicemail box records), the whole voicemail message, then the end.
    const voicemail = twilio.callTo("+12025550172")!;
    expect(voicemail.answeredBy).toBe("machine_end_beep");
    // Who is calling first, word for word (the identification disclosure), then the agent's message.
    expect(voicemail.said).toEqual([expect.stringContaining("an automated AI assistant calling on behalf of"), VOICEMAIL_MESSAGE]);
    const greeting = voicemail.calleeSpans.find((span) => span.clip === "callee.voicemail-greeting")!;
    const beep = voicemail.calleeSpans.find((span) => span.clip === "tone.beep")!;
    expect(voicemail.agentSpans.every((span) => span.endMs <= beep.startMs), "agent audio after the beep").toBe(true);
    expect(voicemail.agentSpans.every((span) => span.endMs <= greeting.startMs + 500), "agent audio over the machine's greeting").toBe(true);

    // Recordings: dual-channel WAV with speech on both channels, through the API's signed link.
    const listed = await app.api("/recordings", { body: { sequenceIds: [...sequenceByDigit.values()] } });
    expect(listed.status).toBe(200);
    const entry = (digit: number) => listed.body.recordings.find((recording: { sequenceId: string }) => recording.sequenceId === sequenceByDigit.get(digit)).calls[0];
    for (const digit of [0, 1, 5, 8]) {
      expect(entry(digit).recordingStatus, `digit ${digit}`).toBe("downloaded");
      const audio = await fetch(entry(digit).url.replace(PUBLIC_BASE_URL, app.origin));
      expect(audio.status, `digit ${digit}`).toBe(200);
      const wav = new Uint8Array(await audio.arrayBuffer());
      expect(Buffer.from(wav).readUInt16LE(22), `digit ${digit} channels`).toBe(2);
      const [callee, agentSide] = wavChannelRms(wav);
      expect(callee, `digit ${digit} callee channel`).toBeGreaterThan(200);
      expect(agentSide, `digit ${digit} agent channel`).toBeGreaterThan(200);
    }
    // Links say the public origin (APP_BASE_URL), never localhost.
    expect(entry(0).url.startsWith(`${PUBLIC_BASE_URL}/`)).toBe(true);
  });

  it("a Realtime refusal at answer: the callee hears an apology and the call ends Failed once, with that reason", async () => {
    openai.setDown(true);
    const sequenceId = await enroll("+12025550181");
    try {
      const payload = await webhookFor(sequenceId, "the refused call's webhook");
      expect(payload.callResult.resultType).toBe("Failed");
      expect(payload.callResult.summary).toMatch(/could not be reached when the call was answered/);
    } finally {
      openai.setDown(false);
    }
    await new Promise((resolve) => setTimeout(resolve, 2000));
    expect(payloads().filter((payload) => payload.sequence.sequenceId === sequenceId)).toHaveLength(1);
    expect(app.logs().filter((line) => line.msg?.includes("realtime connect failed")).every((line) => JSON.stringify(line.err ?? {}) !== "{}")).toBe(true);
  });

  it("a callee who hangs up as the stream starts leaves no Realtime session open", async () => {
    twilio.hangUpAtStreamStart("+12025550191");
    const sequenceId = await enroll("+12025550191");
    await webhookFor(sequenceId, "the early hang-up's webhook");
    await new Promise((resolve) => setTimeout(resolve, 3000));
    expect(openai.sessions.filter((session) => !session.closed)).toEqual([]);
  });
});
