import { and, eq } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { optOuts } from "@/db/schema";
import { defaultHelpText, START_CONFIRMATION, STOP_CONFIRMATION, type SmsOptOutHandling } from "@/server/services/messaging/sms-keywords";
import { TWILIO_DEFAULT_REPLIES, type SimOptOutHandling } from "@/server/simulators/twilio/messages";
import { createTestAgent, createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createTestClock } from "../../helpers/inngest";
import { PUBLIC_BASE_URL, startTwilioForMessages } from "./helpers";

/**
 * Issue 34, item 7: STOP, START and HELP get exactly one answer. The project's Twilio simulator answers keywords as
 * Twilio does (its default opt-out handling, a Messaging Service's Advanced Opt-Out with `OptOutType`, or none) and
 * refuses with 21610 any message to a person who opted out; the app answers only what Twilio did not
 * (SMS_OPT_OUT_HANDLING).
 */
const db = useTestDb();
let twilio: Awaited<ReturnType<typeof startTwilioForMessages>> | null = null;
afterEach(async () => {
  await twilio?.stop();
  twilio = null;
});

// Numbers of this file only, one of ours per test (tests share the database; an SMS finds its organization by our number).
async function setUp(appHandling: SmsOptOutHandling, simulated: SimOptOutHandling, OUR_NUMBER: string) {
  const { organization } = await createTestOrganization(db, { name: "Acme Follow-ups" });
  await createTestAgent(db, organization.id, { phoneNumbers: [OUR_NUMBER] });
  twilio = await startTwilioForMessages(db, createTestClock(), { optOutHandling: appHandling });
  twilio.simulator.messaging.setOptOutHandling(OUR_NUMBER, simulated);
  const text = async (from: string, body: string) => {
    const received = await twilio!.simulator.messaging.receive({ from, to: OUR_NUMBER, body, url: `${PUBLIC_BASE_URL}/api/twilio/messages/inbound` });
    expect(received.status).toBe(200);
    return received;
  };
  return { organization, text, blocked: (contact: string) => twilio!.simulator.messaging.isBlocked(OUR_NUMBER, contact), inbound: () => twilio!.simulator.messaging.callbacks.filter((callback) => callback.kind === "message-inbound") };
}

/** What reached the person (and what was refused), as [who sent it, status, body]. */
function answers(received: { replies: Array<{ source: string | null; status: string; errorCode: number | null; body: string }> }) {
  return received.replies.map((reply) => [reply.source, reply.status === "failed" ? `failed ${reply.errorCode}` : reply.status, reply.body]);
}

async function optedOut(organizationId: string, phoneNumber: string) {
  return (await db.select().from(optOuts).where(and(eq(optOuts.organizationId, organizationId), eq(optOuts.phoneNumber, phoneNumber)))).length > 0;
}

describe("exactly one answer to STOP, START and HELP", () => {
  it("Twilio's default handling (the default): Twilio answers its keywords, the app only the ones Twilio does not read", async () => {
    const { organization, text, blocked } = await setUp("twilio-default", { kind: "default" }, "+16465550102");
    const contact = "+16465550171";

    expect(answers(await text(contact, "STOP"))).toEqual([["opt-out-handling", "delivered", TWILIO_DEFAULT_REPLIES.STOP]]);
    expect(await optedOut(organization.id, contact)).toBe(true);
    expect(answers(await text(contact, "help"))).toEqual([]); // opted out: Twilio sends nothing, nor do we
    expect(answers(await text(contact, "Start"))).toEqual([["opt-out-handling", "delivered", TWILIO_DEFAULT_REPLIES.START]]);
    expect(await optedOut(organization.id, contact)).toBe(false);
    expect(answers(await text(contact, " INFO "))).toEqual([["opt-out-handling", "delivered", TWILIO_DEFAULT_REPLIES.HELP]]);

    // "OPT OUT" is no keyword of Twilio's: it neither blocks nor answers; the app suppresses the number and answers.
    expect(answers(await text(contact, "opt out"))).toEqual([["twiml", "delivered", STOP_CONFIRMATION]]);
    expect(await optedOut(organization.id, contact)).toBe(true);
    expect(blocked(contact)).toBe(false);
  });

  it("Advanced Opt-Out: a keyword Twilio marks with OptOutType is its own (also a word of the service's), the rest the app answers", async () => {
    const service: SimOptOutHandling = {
      kind: "advanced-opt-out",
      keywords: { STOP: ["STOP", "ARRET"], START: ["START"], HELP: ["HELP", "AIDE"] },
      replies: { STOP: "Acme: unsubscribed. Reply START to resubscribe.", START: "Acme: welcome back. Reply STOP to opt out.", HELP: "Acme: help at acme.example. Reply STOP to opt out." },
    };
    const { organization, text, inbound } = await setUp("advanced-opt-out", service, "+16465550112");
    const contact = "+16465550181";

    expect(answers(await text(contact, "arret"))).toEqual([["opt-out-handling", "delivered", "Acme: unsubscribed. Reply START to resubscribe."]]);
    expect(inbound().at(-1)!.params.OptOutType).toBe("STOP");
    expect(await optedOut(organization.id, contact)).toBe(true); // the service's word, read through OptOutType
    expect(answers(await text(contact, "START"))).toEqual([["opt-out-handling", "delivered", "Acme: welcome back. Reply STOP to opt out."]]);
    expect(await optedOut(organization.id, contact)).toBe(false);
    expect(answers(await text(contact, "AIDE"))).toEqual([["opt-out-handling", "delivered", "Acme: help at acme.example. Reply STOP to opt out."]]);
    // INFO is not among the service's words: no OptOutType, Twilio answered nothing, the app answers with the help text.
    expect(answers(await text(contact, "INFO"))).toEqual([["twiml", "delivered", defaultHelpText("Acme Follow-ups")]]);
    expect(inbound().at(-1)!.params.OptOutType).toBeUndefined();
  });

  it("no handling at Twilio (SMS_OPT_OUT_HANDLING=app): the app answers every keyword", async () => {
    const { organization, text } = await setUp("app", { kind: "none" }, "+16465550122");
    const contact = "+16465550191";
    expect(answers(await text(contact, "STOP"))).toEqual([["twiml", "delivered", STOP_CONFIRMATION]]);
    expect(await optedOut(organization.id, contact)).toBe(true);
    expect(answers(await text(contact, "START"))).toEqual([["twiml", "delivered", START_CONFIRMATION]]);
    expect(answers(await text(contact, "HELP"))).toEqual([["twiml", "delivered", defaultHelpText("Acme Follow-ups")]]);
  });

  it("the simulator is Twilio: with its default handling an answer of ours to STOP is refused with 21610, to START and HELP it is a second answer", async () => {
    // The app told (wrongly) that Twilio answers nothing: what a contact got before SMS_OPT_OUT_HANDLING existed.
    const { text } = await setUp("app", { kind: "default" }, "+16465550132");
    const contact = "+16465550151";
    expect(answers(await text(contact, "STOP"))).toEqual([
      ["opt-out-handling", "delivered", TWILIO_DEFAULT_REPLIES.STOP],
      ["twiml", "failed 21610", STOP_CONFIRMATION],
    ]);
    expect(answers(await text(contact, "START")).map(([source]) => source)).toEqual(["opt-out-handling", "twiml"]);
    expect(answers(await text(contact, "HELP")).map(([source]) => source)).toEqual(["opt-out-handling", "twiml"]);
  });
});
