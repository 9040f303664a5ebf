/**
 * Issue 26 in the app as shipped: the built app behind `npm start` with VOICE_ENGINE=twilio-realtime, the project's
 * Twilio and OpenAI Realtime simulators in this process (voice-twilio.test.ts has the set-up), transfer settings saved
 * through the console's tRPC, contacts enrolled through /api/v1 and the results read from the signed webhook: a cold
 * transfer, a warm one the person answers, a warm one nobody answers, and a phone menu navigated to a person.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransferConfig } from "@/db/schema";
import type { OpenAiSimulator } from "@/server/simulators/openai-realtime";
import type { TwilioSimulator } from "@/server/simulators/twilio";
import { clipText } from "@/server/simulators/voice-clips/clips";
import { ASKS_FOR_A_PERSON } from "@/server/simulators/voice-script";
import { draftFromView } from "@/app/(dashboard)/[orgId]/agents/_components/agent-draft";
import { type BuiltApp, listenForWebhooks, signIn, startVoiceApp, VOICE_PUBLIC_BASE_URL, waitFor, type WebhookListener } from "./harness";

const PUBLIC_BASE_URL = VOICE_PUBLIC_BASE_URL;
/** Transfer targets by the Twilio simulator's rule (555-02XX, voice-script.ts): …0 and …1 answer, …4 rings out. */
const COLD_TARGET = "+12025550220";
const WARM_TARGET = "+12025550221";
const SILENT_TARGET = "+12025550224";
const WARM_TIMEOUT_SECONDS = 12;

let app: BuiltApp;
let twilio: TwilioSimulator;
let openai: OpenAiSimulator;
let webhooks: WebhookListener;
let session: Awaited<ReturnType<typeof signIn>>;
const agentIds: Record<"cold" | "warm" | "unanswered" | "menu", string> = { cold: "", warm: "", unanswered: "", menu: "" };

function explain() {
  return { calls: [...twilio.calls.values()].map((call) => ({ to: call.to, status: call.status, said: call.said, events: call.events.slice(0, 40) })), log: app.logs().filter((line) => line.level === 40 || line.level === 50).slice(-20) };
}

/** The console's tRPC, waiting out its rate limit (a few requests a second per person) as the console would. */
async function trpc(procedure: string, input: unknown, options?: { method?: "GET" | "POST" }) {
  for (let attempt = 1; ; attempt += 1) {
    const res = await session.trpc(procedure, input, options);
    if (res.status !== 429 || attempt === 5) return res;
    await new Promise((resolve) => setTimeout(resolve, 1100));
  }
}

async function saveAgent(agentId: string, patch: { transferConfig?: TransferConfig | null; phoneMenuGoal?: string | null }) {
  const config = await trpc("agents.getConfig", { agentId }, { method: "GET" });
  expect(config.status, JSON.stringify(config.body)).toBe(200);
  return trpc("agents.update", { ...draftFromView(config.body.result.data), agentId, ...patch });
}

async function enroll(agentId: string, phoneNumber: string) {
  const res = await app.api(`/agents/${agentId}/schedule/sequence`, {
    body: { name: "Jane Doe", phoneNumber, timezone: "America/New_York", toEmailAddress: `jane.${phoneNumber.slice(-4)}@example.org`, company_name: "Acme Corp", crm_ref: `CRM-${phoneNumber.slice(-3)}` },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.sequence.sequenceId as string;
}

async function webhookFor(sequenceId: string, label: string) {
  return waitFor(() => webhooks.payloads().find((payload) => payload.sequence?.sequenceId === sequenceId), { timeoutMs: 120_000, label, explain });
}

const transferOf = (payload: Record<string, any>) => payload.callResult.agentActions.find((action: { actionKey: string }) => action.actionKey === "transfer_call");

const sales = (destination: string, mode: "cold" | "warm"): TransferConfig => ({
  mode,
  targets: [
    { label: "sales", destination, whenToUse: "pricing, orders, talking to a person" },
    { label: "billing", destination: "sip:billing@pbx.example.test", whenToUse: "invoices" },
  ],
  answerTimeoutSeconds: mode === "warm" ? WARM_TIMEOUT_SECONDS : null,
  hours: null,
  timezone: null,
  fallback: "book_meeting",
});

/** The longest stretch (media seconds) where neither side of a dual-channel 8 kHz recording makes a sound, from the first sound on. */
function longestSharedSilenceSeconds(wav: Buffer): number {
  const channels = wav.readUInt16LE(22);
  const data = wav.subarray(44);
  const frames = data.length / (2 * channels);
  const window = 800; // 100 ms
  let longest = 0;
  let run = 0;
  let heardAnything = false;
  for (let start = 0; start + window <= frames; start += window) {
    let loud = false;
    for (let i = start; i < start + window && !loud; i += 1) {
      for (let channel = 0; channel < channels; channel += 1) if (Math.abs(data.readInt16LE((i * channels + channel) * 2)) > 500) loud = true;
    }
    if (loud) {
      heardAnything = true;
      run = 0;
    } else if (heardAnything) {
      run += 1;
      longest = Math.max(longest, run);
    }
  }
  return longest / 10;
}

beforeAll(async () => {
  ({ app, twilio, openai } = await startVoiceApp({ twilioSpeed: 2 }));
  webhooks = await listenForWebhooks(app);
  const admin = app.demo.dashboard.users.find((user) => user.role === "admin")!;
  session = await signIn(app, admin, app.primary.orgId);
  // Four agents of the demo organization, each with its settings (the link agent books the fallback meeting).
  const byRole = (role: string) => app.primary.agents.find((agent) => agent.role === role)!.agentId;
  agentIds.unanswered = byRole("link");
  agentIds.cold = byRole("crm");
  agentIds.warm = byRole("concierge");
  // The link agent also walks phone menus (towards its goal).
  agentIds.menu = agentIds.unanswered;
  for (const [agentId, patch] of [
    [agentIds.cold, { transferConfig: sales(COLD_TARGET, "cold") }],
    [agentIds.warm, { transferConfig: sales(WARM_TARGET, "warm") }],
    [agentIds.unanswered, { transferConfig: sales(SILENT_TARGET, "warm"), phoneMenuGoal: "the sales team" }],
  ] as const) {
    const saved = await saveAgent(agentId, patch);
    expect(saved.status, JSON.stringify(saved.body)).toBe(200);
  }
}, 300_000);

afterAll(async () => {
  await app?.stop();
  await twilio?.stop();
  await openai?.stop();
  await webhooks?.close();
});

describe("transfers and phone menus in the built app (npm start, VOICE_ENGINE=twilio-realtime, simulators)", () => {
  it("bad transfer settings are refused with the field that is wrong", async () => {
    const cases: Array<[Partial<TransferConfig>, string]> = [
      [{ targets: [{ label: "sales", destination: "555-0100", whenToUse: "" }] }, "transferConfig.targets.0.destination"],
      [{ mode: "warm", answerTimeoutSeconds: null }, "transferConfig.answerTimeoutSeconds"],
      [{ hours: "whenever someone is in" }, "transferConfig.hours"],
    ];
    for (const [patch, field] of cases) {
      const refused = await saveAgent(agentIds.cold, { transferConfig: { ...sales(COLD_TARGET, "cold"), ...patch } });
      expect(refused.status, field).toBe(400);
      expect(refused.body.error.data.appCode, field).toBe("INVALID_REQUEST");
      expect(refused.body.error.data.details.issues.map((issue: { path: string }) => issue.path), field).toContain(field);
    }
    const config = await trpc("agents.getConfig", { agentId: agentIds.cold }, { method: "GET" });
    expect(config.body.result.data.transferConfig).toMatchObject({ mode: "cold", targets: [{ destination: COLD_TARGET }, { destination: "sip:billing@pbx.example.test" }] });
  });

  it("cold, warm answered, warm unanswered and a phone menu: /api/v1 enrollment → Twilio → Realtime → signed webhook", async () => {
    const contacts = { cold: "+12025550151", warm: "+12025550152", unanswered: "+12025550153", menu: "+12025550154" };
    for (const key of ["cold", "warm", "unanswered"] as const) twilio.setCallee(contacts[key], ASKS_FOR_A_PERSON);
    twilio.setMenu(contacts.menu);
    const sequences = {
      cold: await enroll(agentIds.cold, contacts.cold),
      warm: await enroll(agentIds.warm, contacts.warm),
      unanswered: await enroll(agentIds.unanswered, contacts.unanswered),
      menu: await enroll(agentIds.menu, contacts.menu),
    };
    const cold = await webhookFor(sequences.cold, "the cold transfer's webhook");
    const warm = await webhookFor(sequences.warm, "the warm transfer's webhook");
    const unanswered = await webhookFor(sequences.unanswered, "the unanswered transfer's webhook");
    const menu = await webhookFor(sequences.menu, "the phone menu's webhook");

    // Cold: the agent's hand-over line, then <Dial> with our number as caller ID; the person spoke with the caller.
    const coldCaller = twilio.callTo(contacts.cold)!;
    const coldPerson = twilio.callTo(COLD_TARGET)!;
    expect(coldCaller.events).toContain(`dial:${COLD_TARGET}`);
    expect(coldPerson.from).toBe(coldCaller.from);
    expect(cold.callResult.transcription).toContain(clipText("agent.transferring"));
    expect(transferOf(cold), JSON.stringify(cold.callResult.agentActions)).toMatchObject({ status: "completed", metadata: { targetLabel: "sales", mode: "cold", answered: true } });
    expect(transferOf(cold).metadata.humanLegSeconds).toBeGreaterThanOrEqual(5);

    // Warm, answered: the whisper (a summary from the live transcript) on the person's leg only, then one room; the
    // agent's stream ended when the caller went on hold and never came back.
    const warmCaller = twilio.callTo(contacts.warm)!;
    const warmPerson = twilio.callTo(WARM_TARGET)!;
    expect(warmPerson.said).toHaveLength(1);
    expect(warmPerson.said[0]).toMatch(/^Incoming transfer for sales\. Reason: .+ The caller just said: ".*sales team, please\?"/);
    expect(warmCaller.said).toEqual([]);
    const warmRoom = warmCaller.events.find((event) => event.startsWith("conference:"))!;
    expect(warmPerson.events).toContain(warmRoom);
    expect(warmCaller.events.filter((event) => event === "stream-ended")).toHaveLength(1);
    expect(warmCaller.events.indexOf("stream-ended")).toBeLessThan(warmCaller.events.indexOf(warmRoom));
    expect(transferOf(warm)).toMatchObject({ status: "completed", metadata: { mode: "warm", answered: true } });
    expect(transferOf(warm).metadata.humanLegSeconds).toBeGreaterThanOrEqual(5);

    // Warm, nobody answered: the agent came back within the ring timeout, said so and booked the meeting; the caller
    // heard hold music meanwhile, never a long silence.
    expect(transferOf(unanswered)).toMatchObject({ status: "failed", metadata: { answered: false, humanLegSeconds: 0, outcome: "no-answer" } });
    const waitedMs = Date.parse(transferOf(unanswered).completedAt) - Date.parse(transferOf(unanswered).metadata.startedAt);
    expect(waitedMs).toBeLessThanOrEqual(WARM_TIMEOUT_SECONDS * 1000);
    expect(unanswered.callResult.transcription).toContain(clipText("agent.transfer-no-answer"));
    expect(unanswered.crmSchedulingDetails).toMatchObject({ status: "booked" });
    // On hold the caller heard hold music, then the agent: never silence longer than a second (media time).
    const onHold = twilio.callTo(contacts.unanswered)!;
    const listed = await app.api("/recordings", { body: { sequenceIds: [sequences.unanswered] } });
    const url = listed.body.recordings[0].calls[0].url as string;
    const wav = Buffer.from(await (await fetch(url.replace(PUBLIC_BASE_URL, app.origin))).arrayBuffer());
    console.log(
      `unanswered warm transfer: waited ${waitedMs} ms (wall) for the person; longest silence from hold to the agent's return ${onHold.longestSilenceSinceHoldMs} ms, longest on the whole call ${longestSharedSilenceSeconds(wav)} s (media)`,
    );
    expect(onHold.longestSilenceSinceHoldMs).toBeLessThan(4000);

    // The phone menu: the agent pressed 1 (on the call's record), reached the sales desk and talked to the person.
    expect(twilio.callTo(contacts.menu)!.digitsPlayed).toEqual(["1"]);
    expect(menu.callResult.agentActions).toEqual(expect.arrayContaining([expect.objectContaining({ actionKey: "press_digits", metadata: expect.objectContaining({ digits: "1" }) })]));
    expect(menu.callResult.transcription).toContain(clipText("person.sales-hello"));
    expect(menu.callResult.transcription).toContain(clipText("agent.intro"));
    // The Realtime session after the keys carried the conversation on (its first turns re-created, then the note).
    const resumed = openai.sessions.find((candidate) => candidate.notes.some((note) => note.startsWith("[You pressed 1")))!;
    expect(resumed.notes[0]).toBe(clipText("menu.prompt"));

    // One webhook per call.
    for (const sequenceId of Object.values(sequences)) expect(webhooks.payloads().filter((payload) => payload.sequence?.sequenceId === sequenceId)).toHaveLength(1);
  });
});
