import { describe, expect, it } from "vitest";
import { findSequenceMessages } from "@/db/queries/messages";
import { sequenceMessages } from "@/db/schema";
import { createTestAgent, createTestOrganization, createTestSequence } from "../../factories";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();

describe("a sequence's messages, as the metadata and the console list them", () => {
  it("regression: steps created in the same moment are listed in step order, whatever their ids (ids are not ordered within a millisecond)", async () => {
    const { organization } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
    const at = new Date("2026-11-28T10:00:00.000Z");
    const later = new Date(at.getTime() + 60_000);
    const base = { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: at, createdAt: at };
    // Ids the wrong way round: the later step sorts first by id.
    await db.insert(sequenceMessages).values([
      { ...base, id: `message.${sequence.id.slice(-8)}zzzz`, stepNumber: 2, channel: "email", status: "scheduled" },
      { ...base, id: `message.${sequence.id.slice(-8)}aaaa`, stepNumber: 3, channel: "sms", status: "scheduled" },
      { ...base, id: `message.${sequence.id.slice(-8)}0000`, stepNumber: null, channel: "sms", direction: "inbound", status: "received", scheduledAt: later, createdAt: later },
    ]);
    const listed = await findSequenceMessages(db, { organizationId: organization.id, sequenceIds: [sequence.id] });
    expect(listed.map((message) => [message.stepNumber, message.channel, message.direction])).toEqual([
      [2, "email", "outbound"],
      [3, "sms", "outbound"],
      [null, "sms", "inbound"],
    ]);
  });
});
