import { eq } from "drizzle-orm";
import { beforeAll, describe, expect, it } from "vitest";
import { calls, type TransferConfig } from "@/db/schema";
import { createTransfers } from "@/server/voice/twilio-realtime/transfer";
import { useTestDb } from "@/tests/helpers/db";
import { createTestAgent, createTestCall, createTestOrganization, createTestSequence } from "@/tests/factories";
import { placeCallRequest } from "../../unit/voice/fixtures";

const db = useTestDb();

const config = (overrides: Partial<TransferConfig> = {}): TransferConfig => ({
  mode: "cold",
  targets: [
    { label: "Sales", destination: "+12025550220", whenToUse: "pricing" },
    { label: "billing", destination: "sip:billing@pbx.example.test", whenToUse: "invoices" },
  ],
  answerTimeoutSeconds: null,
  hours: null,
  timezone: null,
  fallback: "book_meeting",
  ...overrides,
});

describe("the transfer_call tool's answers (never thrown)", () => {
  const transfers = createTransfers({
    settings: { twilio: { authToken: "t" }, publicBaseUrl: "https://voice.example.test" } as never,
    client: {} as never,
    getDb: () => db,
    now: () => new Date("2026-03-02T23:00:00Z"),
    log: () => {},
    finishIfReady: async () => {},
  });
  let callId = "";
  beforeAll(async () => {
    const { organization } = await createTestOrganization(db);
    const agent = await createTestAgent(db, organization.id);
    const sequence = await createTestSequence(db, { organizationId: organization.id, agentId: agent.id });
    callId = (await createTestCall(db, { organizationId: organization.id, agentId: agent.id, sequenceId: sequence.id, scheduledAt: new Date(), resultType: "Calling" })).id;
  });
  const request = (transfer: TransferConfig | null) => ({ ...placeCallRequest("+12025550101", { agent: { ...placeCallRequest("+1").agent, transfer, timezone: "America/New_York" } }), callId });

  it("an unknown target: the model hears the targets it may use", async () => {
    const decision = await transfers.decide(request(config()), { callSid: "CA1", target: "legal", reason: "x" });
    expect(decision.start).toBeUndefined();
    expect(decision.result).toMatchObject({ ok: false });
    expect(decision.result.message).toContain('no transfer target called "legal"');
    expect(decision.result.message).toContain('"Sales" (pricing)');
  });

  it("no transfers set up, or outside the hours: the model offers the fallback", async () => {
    expect((await transfers.decide(request(null), { callSid: "CA1", target: "sales", reason: "x" })).result.message).toMatch(/not set up.*calls them back/);
    const closed = await transfers.decide(request(config({ hours: "Mon-Fri 09:00-17:00" })), { callSid: "CA1", target: "sales", reason: "x" });
    expect(closed.start).toBeUndefined();
    expect(closed.result.message).toMatch(/Nobody from Sales is available right now.*book a meeting/);
    // The attempt is on the call: the target, the mode, nobody answered.
    const [call] = await db.select({ agentActions: calls.agentActions }).from(calls).where(eq(calls.id, callId));
    expect(call!.agentActions).toEqual([expect.objectContaining({ actionKey: "transfer_call", status: "failed", metadata: expect.objectContaining({ targetLabel: "Sales", answered: false, humanLegSeconds: 0 }) })]);
  });

  it("a target in the hours goes ahead once the hand-over line has played", async () => {
    const decision = await transfers.decide(request(config({ hours: "Mon-Sun 00:00-24:00" })), { callSid: "CA1", target: "SALES", reason: "x" });
    expect(decision.result).toMatchObject({ ok: true, data: { target: "Sales", mode: "cold" } });
    expect(typeof decision.start).toBe("function");
  });
});

