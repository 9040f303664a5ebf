import { eq } from "drizzle-orm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { sequenceMessages } from "@/db/schema";
import { newId } from "@/server/ids";
import { sendSequenceMessage, type MessageTransports } from "@/server/services/messaging/send-sequence-message";
import { createTestAgent, createTestOrganization, createTestSequence, testPoolNumbers } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { messageStep } from "../sequences/helpers";
import { startTelnyxApp } from "./helpers";

/**
 * Issue 36: an SMS step from a number whose carrier is `telnyx` goes through Telnyx Messaging (the official client,
 * the embedded Telnyx simulator), and its delivery comes back through the verified webhook at
 * /api/carriers/telnyx/messages/status into the same status handling as Twilio's. A Twilio number of the same
 * deployment still goes through Twilio: both carriers at once.
 */
const db = useTestDb();
let app: Awaited<ReturnType<typeof startTelnyxApp>>;
beforeAll(async () => {
  app = await startTelnyxApp();
});
afterAll(async () => {
  await app?.stop();
});

const NO_TWILIO: MessageTransports = {
  email: () => {
    throw new Error("no email in this test");
  },
  sms: () => Promise.reject(new Error("a Telnyx number's SMS must not go through Twilio")),
};

async function smsStepTo(contact: string) {
  const { organization } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  const [ours] = await testPoolNumbers(db, organization.id, ["929"], { carrier: "telnyx" });
  const steps = [messageStep("SMS", { body: "Hi {{first_name}}, Ava here. Reply STOP to opt out." })];
  const agent = await createTestAgent(db, organization.id, { name: "Ava", phoneNumbers: [ours!], steps });
  const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id, phoneNumber: contact, steps });
  const now = new Date();
  const [message] = await db
    .insert(sequenceMessages)
    .values({ id: newId("message"), organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, stepNumber: 1, channel: "sms", status: "scheduled", scheduledAt: now, nextAttemptAt: now })
    .returning();
  return { ours: ours!, messageId: message!.id };
}

/** Polls the message until `done` (the simulator reports at its own pace, real time). */
async function rowWhen(id: string, done: (message: typeof sequenceMessages.$inferSelect) => boolean) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const message = await row(id);
    if (done(message) || Date.now() > deadline) return message;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const row = async (id: string) => (await db.select().from(sequenceMessages).where(eq(sequenceMessages.id, id)))[0]!;

describe("SMS steps from a Telnyx number", () => {
  it("are sent with messages.send and marked delivered by Telnyx's verified message.finalized", async () => {
    const contact = "+19295550100";
    const { ours, messageId } = await smsStepTo(contact);
    const outcome = await sendSequenceMessage(db, { messageId, now: new Date(), transports: NO_TWILIO });
    expect(outcome.status).toBe("sent");
    const sent = [...app.simulator.messaging.messages.values()].find((message) => message.to === contact)!;
    expect(sent).toMatchObject({ from: ours, text: expect.stringContaining("Ava here"), webhookUrl: `${app.base}/api/carriers/telnyx/messages/status?messageId=${messageId}` });
    expect(await row(messageId)).toMatchObject({ status: "sent", transport: "telnyx", providerMessageId: sent.id, fromAddress: ours });

    const delivered = await rowWhen(messageId, (message) => message.status === "delivered");
    expect(delivered).toMatchObject({ providerStatus: "delivered", deliveredAt: expect.any(Date) });
    // Both webhooks (message.sent, message.finalized) were taken; the second is recorded as its answer goes out.
    const statuses = () => app.deliveries.filter((delivery) => delivery.path.includes(messageId)).map((delivery) => delivery.status);
    for (let waited = 0; statuses().length < 2 && waited < 5_000; waited += 20) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(statuses()).toEqual([200, 200]);
  });

  it("a Telnyx delivery failure (recipient ending 3: 40008 Undeliverable) is recorded as undelivered with Telnyx's code", async () => {
    const { messageId } = await smsStepTo("+19295550103");
    expect((await sendSequenceMessage(db, { messageId, now: new Date(), transports: NO_TWILIO })).status).toBe("sent");
    const failed = await rowWhen(messageId, (message) => message.providerStatus === "undelivered");
    expect(failed).toMatchObject({ status: "undelivered", errorCode: "40008", error: "Telnyx reported the message undelivered (error 40008)." });
  });

  it("Telnyx refusing the recipient for good (40310) fails the step without retry", async () => {
    const { messageId } = await smsStepTo("+19295550106");
    const outcome = await sendSequenceMessage(db, { messageId, now: new Date(), transports: NO_TWILIO });
    expect(outcome.status).toBe("failed");
    expect(await row(messageId)).toMatchObject({ status: "failed", errorCode: "40310", transport: "telnyx" });
  });
});
