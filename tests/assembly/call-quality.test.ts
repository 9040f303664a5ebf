/**
 * Issue 28's done-when 1 against the app as shipped (`npm start`, VOICE_ENGINE=twilio-realtime, the project's Twilio
 * and Realtime simulators in this process): the quality the media bridge measures per call, read back from
 * GET /conversations/metadata/{sequenceId} and the signed webhook. The Realtime simulator thinks MODEL_DELAY_MS before
 * every response; the Twilio simulator runs at real speed (speed 1), so the callee's timing is a person's.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpenAiSimulator } from "@/server/simulators/openai-realtime";
import type { TwilioSimulator } from "@/server/simulators/twilio";
import { clipText } from "@/server/simulators/voice-clips/clips";
import { INTERRUPTING_SCENARIO, SCREENER_SCENARIO } from "@/server/simulators/voice-script";
import { draftFromView } from "@/app/(dashboard)/[orgId]/agents/_components/agent-draft";
import { type BuiltApp, listenForWebhooks, signIn, startVoiceApp, waitFor, type WebhookListener } from "./harness";

const MODEL_DELAY_MS = 400;
const CALL_PURPOSE = "about your recent enquiry";
const PERSON = "+12025550371";
const VOICEMAIL = "+12025550372";
const SCREENER = "+12025550383";
const INTERRUPTER = "+12025550384";

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let webhooks: WebhookListener;
let agentId: string;
let agentName: string;

function callsSoFar() {
  return [...twilio.calls.values()].map((call) => ({ to: call.to, status: call.status, answeredBy: call.answeredBy, callee: call.calleeSpans, agent: call.agentSpans, events: call.events.slice(0, 20) }));
}

async function enroll(phoneNumber: string) {
  const res = await app.api(`/agents/${agentId}/schedule/sequence`, {
    body: { name: "Jane Doe", phoneNumber, timezone: "America/New_York", toEmailAddress: `jane.${phoneNumber.slice(-4)}@example.org`, company_name: "Acme Corp", crm_ref: `CRM-${phoneNumber.slice(-3)}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

beforeAll(async () => {
  ({ app, twilio, openai } = await startVoiceApp({ twilioSpeed: 1, openai: { responseDelayMs: MODEL_DELAY_MS } }));
  twilio.setCallee(SCREENER, SCREENER_SCENARIO);
  twilio.setCallee(INTERRUPTER, INTERRUPTING_SCENARIO);
  const agent = app.primary.agents.find((candidate) => candidate.role === "link")!;
  agentId = agent.agentId;
  agentName = agent.name;
  webhooks = await listenForWebhooks(app);
  // The console: the agent greets on answer (the default, said here), tells screeners why it calls, leaves a message.
  const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
  const session = await signIn(app, admin, app.primary.orgId);
  const config = await session.trpc("agents.getConfig", { agentId }, { method: "GET" });
  expect(config.status, JSON.stringify(config.body)).toBe(200);
  const updated = await session.trpc("agents.update", {
    ...draftFromView(config.body.result.data),
    agentId,
    voicemailMessage: clipText("tts.voicemail"),
    greetingMode: "on-answer",
    callPurpose: CALL_PURPOSE,
    answeredByActions: { screener: "answer-screener", machine: "leave-message" },
  });
  expect(updated.status, JSON.stringify(updated.body)).toBe(200);
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
  await webhooks?.close();
});

describe("call quality measured at the media bridge (the built app, Twilio and Realtime simulators)", () => {
  it("response latency matches the model's delay, greeting under 1 s, one interruption counted once, a screener answered and the call goes on", async () => {
    const sequences = new Map<string, string>();
    for (const number of [PERSON, VOICEMAIL, SCREENER, INTERRUPTER]) sequences.set(number, await enroll(number));
    const payloadOf = (number: string) => webhooks.payloads().find((payload) => payload.sequence?.sequenceId === sequences.get(number));
    await waitFor(() => [...sequences.keys()].every((number) => payloadOf(number)), {
      timeoutMs: 240_000,
      label: "four call-result webhooks",
      explain: () => ({ calls: callsSoFar(), log: app.logs().filter((line) => line.level === 40 || line.level === 50).slice(-20) }),
    });
    const metadataOf = async (number: string) => {
      const res = await app.api(`/conversations/metadata/${sequences.get(number)}`);
      expect(res.status).toBe(200);
      return res.body.metadata[0];
    };

    // A person: greeted within 1 s of the stream start; every turn the bridge did not hold (for the AMD verdict or a
    // tool) took the model's injected delay, within 40 ms; the webhook carries the same object as the metadata.
    const person = await metadataOf(PERSON);
    const quality = person.quality;
    expect(quality, JSON.stringify(person)).toMatchObject({ answeredBy: "human", interruptions: 0, amd: { result: "human" } });
    expect(quality.greetingMs).toBeGreaterThan(0);
    expect(quality.greetingMs).toBeLessThan(1000);
    expect(quality.amd.decisionMs).toBeGreaterThan(1000);
    expect(payloadOf(PERSON)!.quality).toEqual(quality);
    const direct = quality.turnLatencies.filter((turn: { heldMs: number }) => turn.heldMs === 0);
    expect(direct.length, JSON.stringify(quality)).toBeGreaterThanOrEqual(1);
    for (const turn of direct) {
      expect(Math.abs(turn.responseMs - MODEL_DELAY_MS), JSON.stringify(turn)).toBeLessThanOrEqual(40);
      expect(turn.bridgeMs).toBeLessThan(20);
    }
    // A held turn (the first answer waits for Twilio's AMD) says so, and the model's share is still its delay.
    for (const turn of quality.turnLatencies.filter((candidate: { heldMs: number }) => candidate.heldMs > 0)) {
      expect(turn.responseMs).toBeGreaterThanOrEqual(turn.heldMs);
    }
    expect(quality.responseMs.max).toBeGreaterThanOrEqual(quality.responseMs.p95);

    // An interruption scripted in the Twilio simulator ("not now" 1.5 s into the agent's answer): counted once.
    const interrupted = await metadataOf(INTERRUPTER);
    expect(interrupted.quality.interruptions, JSON.stringify(interrupted.quality)).toBe(1);
    expect(interrupted.callResult.resultType).toBe("Goal Not Completed");

    // A call screener: answered with the agent's name and purpose, then the person took the call and it went on.
    const screened = await metadataOf(SCREENER);
    expect(screened.quality.answeredBy).toBe("screener");
    const transcript = screened.callResult.transcription as string;
    expect(transcript).toContain(`Agent: This is ${agentName}, calling ${CALL_PURPOSE}.`);
    expect(transcript.indexOf(clipText("callee.not-now")), transcript).toBeGreaterThan(transcript.indexOf(`This is ${agentName}`));
    expect(screened.callResult.resultType).toBe("Goal Not Completed");

    // A voicemail box: AMD's class and decision time; the greeting was cut before the beep, the message left whole.
    const voicemail = await metadataOf(VOICEMAIL);
    expect(voicemail.quality).toMatchObject({ answeredBy: "machine", amd: { result: "machine_end_beep" } });
    const machineCall = twilio.callTo(VOICEMAIL)!;
    const beep = machineCall.calleeSpans.find((span) => span.clip === "tone.beep")!;
    expect(machineCall.agentSpans.every((span) => span.endMs <= beep.startMs), JSON.stringify(machineCall.agentSpans)).toBe(true);
    // The message starts with who is calling (the identification disclosure, docs/compliance.md).
    expect(machineCall.said).toEqual([expect.stringContaining("an automated AI assistant calling on behalf of"), clipText("tts.voicemail")]);

    // /metrics (loopback): the histograms and counters have the calls.
    const metrics = await (await fetch(`${app.origin}/metrics`)).text();
    expect(metrics).toMatch(/call_response_latency_seconds_count\{engine="twilio-realtime"\} [1-9]/);
    expect(metrics).toMatch(/call_greeting_delay_seconds_count\{engine="twilio-realtime",greeting_mode="on-answer"\} [1-9]/);
    expect(metrics).toMatch(/call_answered_by_total\{engine="twilio-realtime",answered_by="screener"\} 1/);
    expect(metrics).toMatch(/call_interruptions_total\{engine="twilio-realtime"\} [1-9]/);
  });
});
