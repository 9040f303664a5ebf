import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { appCodeOfError } from "@/server/errors";
import { describeZodError } from "@/server/schemas/validation-message";
import { MAX_PROMPT_LENGTH, MAX_STEP_DELAY_SECONDS, MAX_URL_LENGTH } from "@/server/schemas/limits";
import { createTestAgent, createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { consoleCaller } from "../console/helpers";

const db = useTestDb();

const STEP = {
  stepType: "CALL" as const,
  delaySeconds: 0,
  delaySecondsMax: null,
  executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 0, endTime: 1440 }, timezoneSource: "contact" as const },
};
const config = (overrides: Record<string, unknown> = {}) => ({
  name: "Console agent",
  status: "ACTIVE" as const,
  timezones: ["America/New_York"],
  phoneNumbers: [],
  steps: [STEP],
  prompt: "Hello",
  bookingConfig: null,
  inputVariables: [{ slug: "company_name", displayName: "Company", description: "", required: true }],
  extractedVariables: [],
  outcomes: [],
  ...overrides,
});

/** The error code and message a console call fails with (the message the dashboard gets over HTTP). */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const cause = (error as Error).cause;
    return { code: appCodeOfError(error), message: cause instanceof ZodError ? describeZodError(cause) : (error as Error).message };
  }
  throw new Error("expected the call to fail");
}

async function setup() {
  const { organization } = await createTestOrganization(db, { monthlyCreditAllocation: 10_000 });
  const agent = await createTestAgent(db, organization.id, {
    timezones: ["America/New_York"],
    steps: [STEP],
    inputVariables: [{ slug: "company_name", displayName: "Company", description: "", required: true }],
  });
  const admin = await consoleCaller(db, organization.id, "admin");
  return { organization, agent, admin };
}

const contact = { name: "Ada", phoneNumber: "+12015550101", customVariables: { company_name: "Acme" } };

describe("console procedures: bounds and NUL characters are 400 INVALID_REQUEST naming the field", () => {
  it("agent editor: text with NUL, a prompt over 20,000 characters, a step delay over a year", async () => {
    const { admin } = await setup();
    expect(await failure(admin.agents.create(config({ name: "Bad\u0000name" })))).toEqual({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("name: must not contain NUL characters"),
    });
    expect(await failure(admin.agents.create(config({ outcomes: [{ name: "Booked\ud800", description: "", enabled: true }] })))).toEqual({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("outcomes.0.name: must not contain"),
    });
    expect(await failure(admin.agents.create(config({ prompt: "p".repeat(MAX_PROMPT_LENGTH + 1) })))).toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("prompt"),
    });
    // Any safe integer used to be stored (9e15 seconds: no date can hold the call it schedules).
    expect(await failure(admin.agents.create(config({ steps: [STEP, { ...STEP, delaySeconds: MAX_STEP_DELAY_SECONDS + 1 }] })))).toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("steps.1.delaySeconds"),
    });
    const { agentId } = await admin.agents.create(config({ steps: [STEP, { ...STEP, delaySeconds: MAX_STEP_DELAY_SECONDS }] }));
    expect(agentId).toMatch(/^agent\./);
  });

  it("webhook endpoints and API keys", async () => {
    const { admin } = await setup();
    expect(await failure(admin.webhooks.createEndpoint({ url: `http://127.0.0.1:9/${"x".repeat(MAX_URL_LENGTH)}` }))).toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("url"),
    });
    expect(await failure(admin.webhooks.createEndpoint({ url: "http://127.0.0.1:9/hook", description: "a\u0000" }))).toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("description: must not contain NUL"),
    });
    expect(await failure(admin.apiKeys.create({ name: "k".repeat(101) }))).toMatchObject({ code: "INVALID_REQUEST", message: expect.stringContaining("name") });
  });
});

describe("console date inputs: the REST rule (1900–9999, in UTC) everywhere", () => {
  it("refuses years outside 1900–9999 in consent.export and meetings.list as 400 naming the field (PostgreSQL's 'out of range' 500 before)", async () => {
    const { admin } = await setup();
    const outOfRange = [
      { from: "0000-01-01T00:00:00Z", to: "0000-06-01T00:00:00Z", after: null },
      // Year 0001 locally is year 0000 in UTC.
      { from: "0001-01-01T00:00:00+14:00", to: "0001-06-01T00:00:00Z", after: null },
      { from: "1899-12-31T00:00:00Z", to: "1900-02-01T00:00:00Z", after: null },
      { from: "2026-01-01T00:00:00Z", to: "2026-02-01T00:00:00Z", after: { enrolledAt: "0000-01-01T00:00:00Z", sequenceId: "call-sequence.x" } },
    ];
    for (const input of outOfRange) {
      expect(await failure(admin.consent.export(input)), JSON.stringify(input)).toEqual({
        code: "INVALID_REQUEST",
        message: expect.stringMatching(/(from|to|after\.enrolledAt): must be a date-time from 1900-01-01 to 9999-12-31/),
      });
    }
    for (const input of [{ from: "0000-01-01T00:00:00Z" }, { to: "9999-12-31T23:00:00-14:00" }]) {
      expect(await failure(admin.meetings.list(input)), JSON.stringify(input)).toEqual({
        code: "INVALID_REQUEST",
        message: expect.stringMatching(/(from|to): must be a date-time from 1900-01-01/),
      });
    }
    // The edges themselves are fine.
    await expect(admin.consent.export({ from: "1900-01-01T00:00:00Z", to: "1900-06-01T00:00:00Z", after: null })).resolves.toMatchObject({ records: [] });
    await expect(admin.meetings.list({ from: "1900-01-01T00:00:00Z", to: "9999-12-31T23:59:59Z" })).resolves.toMatchObject({ meetings: [] });
  });
});

describe("CSV import: a bad row is reported alone, not the request", () => {
  it("validates rows with NUL characters, unpaired surrogates and oversized values as rejected rows", async () => {
    const { agent, admin } = await setup();
    const { rows } = await admin.enrollment.validateImportRows({
      agentId: agent.id,
      rows: [
        contact,
        { ...contact, phoneNumber: "+12015550102", name: "Ada\u0000" },
        { ...contact, phoneNumber: "+12015550103", customVariables: { company_name: "A\ud800" } },
        { ...contact, phoneNumber: "+12015550104", customVariables: { company_name: "x".repeat(1001) } },
      ],
    });
    expect(rows.map((row) => (row.ok ? "ok" : row.reason))).toEqual(["ok", "INVALID_NAME", "INVALID_INPUT_VARIABLE", "INVALID_INPUT_VARIABLE"]);
  });

  it("submits a batch whose NUL contact is rejected and whose other contacts are accepted", async () => {
    const { agent, admin } = await setup();
    const result = await admin.enrollment.submitImportBatch({
      agentId: agent.id,
      idempotencyKey: "file-1:0",
      contacts: [contact, { ...contact, phoneNumber: "+12015550109", toEmailAddress: "a\u0000@b.example" }],
    });
    expect(result).toMatchObject({ total: 2, accepted: 1, rejected: [{ index: 1, reason: "MISSING_EMAIL" }] });
    // The batch's own fields are still guarded.
    expect(await failure(admin.enrollment.submitImportBatch({ agentId: agent.id, idempotencyKey: "file-1:\u0000", contacts: [contact] }))).toMatchObject({
      code: "INVALID_REQUEST",
      message: expect.stringContaining("idempotencyKey"),
    });
  });
});
