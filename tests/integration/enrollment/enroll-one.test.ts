import { describe, expect, it } from "vitest";
import { createTestTransaction, createTestAgent, createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { addOptOut, callStep, findCalls, findSequence, patientApiClient, setupEnrollment } from "./helpers";

const db = useTestDb();
const api = patientApiClient(db);

const contact = { name: "Ada Lovelace", phoneNumber: "+1 (415) 555-0171", company_name: "Acme" };

function enroll(key: string, agentId: string, body: unknown, client = api) {
  return client(`/agents/${agentId}/schedule/sequence`, { method: "POST", key, body });
}

describe("POST /agents/{agentId}/schedule/sequence", () => {
  it("creates the sequence with the agent's steps and its first Scheduled call (201)", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const res = await enroll(apiKey, agent.id, {
      ...contact,
      toEmailAddress: "ada@example.com",
      crm_ref: "CRM-1",
      customVariables: { account: "A-7", company_name: "Acme" },
    });
    expect(res.status).toBe(201);
    const { sequence } = res.body;
    expect(sequence).toMatchObject({
      sequenceId: expect.stringMatching(/^call-sequence\.[0-9a-z]{26}$/),
      agentId: agent.id,
      name: "Ada Lovelace",
      phoneNumber: "+14155550171",
      phoneNumberExt: "",
      toEmailAddress: "ada@example.com",
      timezone: "America/Los_Angeles",
      scheduledBy: "api",
      customInputVariables: { company_name: "Acme", crm_ref: "CRM-1", account: "A-7" },
      lifecycleStatus: "in progress",
      chainStatus: null,
    });
    expect(sequence.steps).toEqual(agent.steps);
    expect(Object.keys(res.body)).toEqual(["sequence"]);

    const row = await findSequence(db, sequence.sequenceId);
    expect(row).toMatchObject({ organizationId: agent.organizationId, scheduledBy: "api", lifecycleStatus: "in progress", steps: agent.steps });
    const created = await findCalls(db, sequence.sequenceId);
    expect(created).toHaveLength(1);
    expect(created[0]).toMatchObject({
      id: expect.stringMatching(/^call\.[0-9a-z]{26}$/),
      stepNumber: 1,
      attempt: 1,
      resultType: "Scheduled",
      promptVersionId: agent.currentPromptVersionId,
    });
    expect(created[0]!.scheduledAt.toISOString()).toBe(sequence.scheduledAt);
  });

  it("rejects each field error with its own 400 code", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{ ...contact, name: undefined }, "INVALID_REQUEST", "name"],
      [{ ...contact, name: "  " }, "INVALID_REQUEST", "name"],
      [{ ...contact, phoneNumber: undefined }, "INVALID_REQUEST", "phoneNumber"],
      [{ ...contact, phoneNumber: "+1 555" }, "INVALID_PHONE_NUMBER", "phoneNumber"],
      [{ ...contact, phoneNumberExt: "12a" }, "INVALID_PHONE_NUMBER", "phoneNumberExt"],
      [{ ...contact, timezone: "Mars/Olympus_Mons" }, "INVALID_TIMEZONE", "timezone"],
      [{ ...contact, scheduledAt: "2020-01-01T10:00:00Z" }, "INVALID_SCHEDULED_AT", "future"],
      [{ ...contact, scheduledAt: "next tuesday" }, "INVALID_SCHEDULED_AT", "ISO 8601"],
      [{ ...contact, company_name: undefined }, "MISSING_INPUT_VARIABLE", "company_name"],
      [{ ...contact, company_name: " " }, "MISSING_INPUT_VARIABLE", "company_name"],
      [{ ...contact, customVariables: { company_name: "Other" } }, "INVALID_INPUT_VARIABLE", "company_name"],
      [{ ...contact, employees: 42 }, "INVALID_INPUT_VARIABLE", "employees"],
      [{ ...contact, toEmailAddress: "not-an-email" }, "MISSING_EMAIL", "toEmailAddress"],
      [{ ...contact, bypassCallWindows: "yes" }, "INVALID_REQUEST", "bypassCallWindows"],
    ];
    for (const [body, code, mentioned] of cases) {
      const res = await enroll(apiKey, agent.id, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error, JSON.stringify(body)).toBe(code);
      expect(res.body.message).toContain(mentioned);
    }
  });

  it("requires an email when the agent has email steps", async () => {
    const { apiKey, agent } = await setupEnrollment(db, {
      agent: { steps: [callStep(), callStep({ stepType: "EMAIL", subject: "Hello", body: "Hi {{name}}", delaySeconds: 60 })] },
    });
    const missing = await enroll(apiKey, agent.id, contact);
    expect(missing.status).toBe(400);
    expect(missing.body.error).toBe("MISSING_EMAIL");
    expect((await enroll(apiKey, agent.id, { ...contact, toEmailAddress: "ada@example.com" })).status).toBe(201);
  });

  it("answers 404 for another organization's agent, 422 for unschedulable agents, 201 for paused ones", async () => {
    const { apiKey, organization } = await setupEnrollment(db);
    const other = await createTestOrganization(db);
    const foreign = await createTestAgent(db, other.organization.id);
    expect((await enroll(apiKey, foreign.id, contact)).body.error).toBe("AGENT_NOT_FOUND");
    expect((await enroll(apiKey, "agent.nope", contact)).status).toBe(404);

    const archived = await createTestAgent(db, organization.id, { status: "ARCHIVED" });
    const noCall = await createTestAgent(db, organization.id, { steps: [callStep({ stepType: "EMAIL" })] });
    const noSteps = await createTestAgent(db, organization.id, { steps: [] });
    const badBooking = await createTestAgent(db, organization.id, { bookingConfig: { mode: "crm", provider: "chili-piper", routerId: "r1" } });
    for (const agent of [archived, noCall, noSteps, badBooking]) {
      const res = await enroll(apiKey, agent.id, { ...contact, toEmailAddress: "a@example.com" });
      expect(res.status).toBe(422);
      expect(res.body.error).toBe("AGENT_MISCONFIGURED");
    }
    const paused = await createTestAgent(db, organization.id, { status: "PAUSED" });
    const res = await enroll(apiKey, paused.id, contact);
    expect(res.status).toBe(201);
    expect((await findCalls(db, res.body.sequence.sequenceId))[0]!.resultType).toBe("Scheduled");
  });

  it("refuses numbers that opted out in this organization only (409 OPTED_OUT)", async () => {
    const { apiKey, agent, organization } = await setupEnrollment(db);
    await addOptOut(db, organization.id, "+14155550171");
    const res = await enroll(apiKey, agent.id, { ...contact, phoneNumber: "415.555.0171" });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: "OPTED_OUT", message: expect.stringContaining("+14155550171") });
    const other = await setupEnrollment(db);
    expect((await enroll(other.apiKey, other.agent.id, contact)).status).toBe(201);
  });

  it("needs one remaining credit this month (402 INSUFFICIENT_CREDITS)", async () => {
    const none = await setupEnrollment(db, { credits: 0 });
    const res = await enroll(none.apiKey, none.agent.id, contact);
    expect(res.status).toBe(402);
    expect(res.body.error).toBe("INSUFFICIENT_CREDITS");

    const spent = await setupEnrollment(db, { credits: 10 });
    await createTestTransaction(db, { organizationId: spent.organization.id, agentId: spent.agent.id, credits: 10, createdAt: new Date() });
    expect((await enroll(spent.apiKey, spent.agent.id, contact)).status).toBe(402);
    // last month's spend does not count
    const lastMonth = await setupEnrollment(db, { credits: 10 });
    const previous = new Date();
    previous.setUTCDate(1);
    previous.setUTCMonth(previous.getUTCMonth() - 1);
    await createTestTransaction(db, { organizationId: lastMonth.organization.id, agentId: lastMonth.agent.id, credits: 10, createdAt: previous });
    expect((await enroll(lastMonth.apiKey, lastMonth.agent.id, contact)).status).toBe(201);
  });

  it("keeps HEAD a connectivity check that schedules nothing", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const head = await api(`/agents/${agent.id}/schedule/sequence`, { method: "HEAD", key: apiKey });
    expect(head.status).toBe(200);
    expect(head.text).toBe("");
    expect((await api(`/agents/${agent.id}/schedule/sequence`, { method: "HEAD" })).status).toBe(401);
  });
});

describe("timezone and scheduled time", () => {
  const now = new Date("2026-03-07T23:00:00.000Z"); // Saturday evening in the US, the night before DST starts
  const fixed = patientApiClient(db, { now: () => now });

  it("infers the timezone from the area code, falls back to the agent's first timezone", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const cases: Array<[string, string]> = [
      ["+12125550123", "America/New_York"],
      ["+13035550100", "America/Denver"],
      ["+16025550100", "America/Phoenix"],
      ["+18085550100", "Pacific/Honolulu"],
      ["+442079460123", "Europe/London"],
      ["+18005550100", "America/Chicago"], // toll-free: agent's first timezone
    ];
    for (const [phoneNumber, timezone] of cases) {
      const res = await enroll(apiKey, agent.id, { ...contact, phoneNumber }, fixed);
      expect(res.status, phoneNumber).toBe(201);
      expect(res.body.sequence.timezone, phoneNumber).toBe(timezone);
    }
    const given = await enroll(apiKey, agent.id, { ...contact, timezone: "europe/berlin" }, fixed);
    expect(given.body.sequence.timezone).toBe("Europe/Berlin");
  });

  it("schedules the first call inside the window, DST-correct, in the inferred zone", async () => {
    const { apiKey, agent } = await setupEnrollment(db, {
      agent: { steps: [callStep({ executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" } })] },
    });
    // New York: 18:00 EST now → Sunday 09:00 EDT (13:00Z); Los Angeles: 15:00 PST → inside the window
    const ny = await enroll(apiKey, agent.id, { ...contact, phoneNumber: "+12125550123" }, fixed);
    expect(ny.body.sequence.scheduledAt).toBe("2026-03-08T13:00:00.000Z");
    const la = await enroll(apiKey, agent.id, contact, fixed);
    expect(la.body.sequence.scheduledAt).toBe(now.toISOString());
    const bypass = await enroll(apiKey, agent.id, { ...contact, phoneNumber: "+12125550123", bypassCallWindows: true }, fixed);
    expect(bypass.body.sequence.scheduledAt).toBe(now.toISOString());
    expect((await findSequence(db, bypass.body.sequence.sequenceId))!.bypassCallWindows).toBe(true);
  });

  it("reads a scheduledAt without offset in the contact's timezone and requires the future", async () => {
    const { apiKey, agent } = await setupEnrollment(db);
    const summer = await enroll(apiKey, agent.id, { ...contact, phoneNumber: "+12125550123", scheduledAt: "2026-07-01T10:00:00" }, fixed);
    expect(summer.body.sequence.scheduledAt).toBe("2026-07-01T14:00:00.000Z");
    const winter = await enroll(apiKey, agent.id, { ...contact, phoneNumber: "+12125550123", scheduledAt: "2026-12-01T10:00:00" }, fixed);
    expect(winter.body.sequence.scheduledAt).toBe("2026-12-01T15:00:00.000Z");
    const withOffset = await enroll(apiKey, agent.id, { ...contact, scheduledAt: "2026-03-10T09:30:00+01:00" }, fixed);
    expect(withOffset.body.sequence.scheduledAt).toBe("2026-03-10T08:30:00.000Z");
    // 17:30 New York on 7 March is 22:30Z: already past at 23:00Z
    const past = await enroll(apiKey, agent.id, { ...contact, phoneNumber: "+12125550123", scheduledAt: "2026-03-07T17:30:00" }, fixed);
    expect(past.status).toBe(400);
    expect(past.body.error).toBe("INVALID_SCHEDULED_AT");
  });
});
