import { describe, expect, it } from "vitest";
import { appCodeOfError } from "@/server/errors";
import { createTestAgent, testPoolNumbers } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles } from "./helpers";

const db = useTestDb();
const api = apiClient(db);

const STEP = {
  stepType: "CALL" as const,
  delaySeconds: 0,
  delaySecondsMax: null,
  executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" as const },
};

function config(overrides: Record<string, unknown> = {}) {
  return {
    name: "Console agent",
    status: "ACTIVE" as const,
    timezones: ["america/new_york"],
    phoneNumbers: [] as string[],
    steps: [STEP, { ...STEP, delaySeconds: 86_400, delaySecondsMax: 90_000 }],
    prompt: "First prompt",
    bookingConfig: null,
    inputVariables: [{ slug: "company_name", displayName: "Company", description: "", required: true }],
    extractedVariables: [
      { slug: "callback_at", displayName: "Callback at", description: "", type: "DATE/TIME" as const, datetimeFormat: "dd/MM/yyyy HH:mm", formatDatetimeInUtc: true },
      { slug: "tier", displayName: "Tier", description: "", type: "DROPDOWN" as const, dropdownOptions: ["gold", "silver"] },
    ],
    outcomes: [{ name: "Booked", description: "", enabled: true }],
    ...overrides,
  };
}

async function codeOf(promise: Promise<unknown>) {
  return promise.then(
    () => "OK",
    (error: unknown) => appCodeOfError(error),
  );
}

describe("agent management through the console procedures, seen through /api/v1", () => {
  it("creates an agent whose definitions the API lists at once, normalized", async () => {
    const { as, apiKey, organization } = await createOrgWithRoles(db);
    const [pool] = await testPoolNumbers(db, organization.id, ["202"]);
    // Typed as people write it: normalized to E.164 and checked against the organization's own numbers.
    const typed = `+1 (202) ${pool!.slice(5, 8)}-${pool!.slice(8)}`;
    const { agentId } = await as("admin").agents.create(config({ phoneNumbers: [typed] }));
    const view = await as("member").agents.getConfig({ agentId });
    expect(view.timezones).toEqual(["America/New_York"]);
    expect(view.phoneNumbers).toEqual([pool]);
    expect(view.promptVersionId).toMatch(/^prompt-ver\.[0-9a-z]{26}$/);
    expect((await api(`/agents/${agentId}/input-variables`, { key: apiKey })).body.inputVariables).toEqual([
      { slug: "company_name", displayName: "Company", description: "" },
    ]);
    expect((await api(`/agents/${agentId}/extracted-variables`, { key: apiKey })).body.extractedVariables).toEqual([
      { slug: "callback_at", displayName: "Callback at", description: "", type: "DATE/TIME", datetimeFormat: "dd/MM/yyyy HH:mm", formatDatetimeInUtc: true },
      { slug: "tier", displayName: "Tier", description: "", type: "DROPDOWN", dropdownOptions: ["gold", "silver"] },
    ]);
    expect((await api(`/agents/${agentId}/outcomes`, { key: apiKey })).body.outcomes.map((o: { name: string }) => o.name)).toEqual(["Booked"]);
  });

  it("update: soft-deletes removed variables (the API hides them, the slug can be reused), disables outcomes, versions the prompt", async () => {
    const { as, apiKey } = await createOrgWithRoles(db);
    const { agentId } = await as("admin").agents.create(config());
    const before = await as("admin").agents.getConfig({ agentId });

    const noPromptChange = await as("admin").agents.update({ ...config({ name: "Renamed" }), agentId, outcomes: before.outcomes.map(({ id, name, description, enabled }) => ({ id, name, description, enabled })) });
    expect(noPromptChange).toMatchObject({ promptChanged: false, promptVersionId: before.promptVersionId });
    expect((await api(`/agents?orgId=${(await as("admin").organizations.current()).orgId}`, { key: apiKey })).body.agents[0].name).toBe("Renamed");

    const result = await as("admin").agents.update({
      ...config({ prompt: "Second prompt" }),
      agentId,
      inputVariables: [{ slug: "company_name", displayName: "Company (new)", description: "", required: false }],
      extractedVariables: [],
      outcomes: before.outcomes.map(({ id, name, description }) => ({ id, name, description, enabled: false })),
    });
    expect(result.promptChanged).toBe(true);
    expect(result.promptVersionId).not.toBe(before.promptVersionId);
    const after = await as("admin").agents.getConfig({ agentId });
    expect(after.promptVersions.map((v) => v.promptVersionId)).toEqual([result.promptVersionId, before.promptVersionId]);
    expect(after.prompt).toBe("Second prompt");
    expect(after.inputVariables).toHaveLength(1);
    expect(after.inputVariables[0]!.id).not.toBe(before.inputVariables[0]!.id);

    expect((await api(`/agents/${agentId}/input-variables`, { key: apiKey })).body.inputVariables).toEqual([
      { slug: "company_name", displayName: "Company (new)", description: "" },
    ]);
    expect((await api(`/agents/${agentId}/extracted-variables`, { key: apiKey })).body.extractedVariables).toEqual([]);
    expect((await api(`/agents/${agentId}/outcomes`, { key: apiKey })).body.outcomes).toEqual([]);
  });

  it("refuses invalid configurations with messages naming the field, and writes nothing", async () => {
    const { as } = await createOrgWithRoles(db);
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ timezones: ["Mars/Base"] }, "timezones.0"],
      [{ phoneNumbers: ["12"] }, "phoneNumbers.0"],
      [{ steps: [{ ...STEP, executionWindowConfig: { ...STEP.executionWindowConfig, timeWindow: { startTime: 600, endTime: 600 } } }] }, "steps.0.executionWindowConfig.timeWindow"],
      [{ steps: [{ ...STEP, delaySeconds: 100, delaySecondsMax: 50 }] }, "steps.0.delaySecondsMax"],
      [{ inputVariables: [{ slug: "Bad Slug", displayName: "", description: "", required: false }] }, "inputVariables.0.slug"],
      [{ extractedVariables: [{ slug: "d", displayName: "", description: "", type: "DROPDOWN", dropdownOptions: [] }] }, "extractedVariables.0.dropdownOptions"],
      [{ extractedVariables: [{ slug: "t", displayName: "", description: "", type: "DATE/TIME", datetimeFormat: "banana" }] }, "extractedVariables.0.datetimeFormat"],
      [{ bookingConfig: { mode: "crm", provider: "chili-piper", routerId: "r" } }, "bookingConfig.distributionId"],
    ];
    for (const [overrides, field] of cases) {
      const error = await as("admin").agents.create(config(overrides)).catch((e: unknown) => e as Error);
      expect(appCodeOfError(error), field).toBe("INVALID_REQUEST");
      expect((error as Error).message, field).toContain(field);
    }
    expect((await as("admin").agents.listForConsole({ page: 1 })).pagination.totalItems).toBe(0);
  });

  it("voice-call settings: defaults on create, saved on update, kept when left out, bounded", async () => {
    const { as } = await createOrgWithRoles(db);
    const { agentId } = await as("admin").agents.create(config());
    expect(await as("member").agents.getConfig({ agentId })).toMatchObject({ voicemailMessage: null, ringTimeoutSeconds: 30, maxCallSeconds: 600, voice: "marin" });
    await as("admin").agents.update({ ...config(), agentId, voicemailMessage: "  Please call us back.  ", ringTimeoutSeconds: 20, maxCallSeconds: 300, voice: "cedar" });
    expect(await as("member").agents.getConfig({ agentId })).toMatchObject({ voicemailMessage: "Please call us back.", ringTimeoutSeconds: 20, maxCallSeconds: 300, voice: "cedar" });
    await as("admin").agents.update({ ...config({ prompt: "Second prompt" }), agentId });
    expect(await as("member").agents.getConfig({ agentId })).toMatchObject({ voicemailMessage: "Please call us back.", ringTimeoutSeconds: 20, voice: "cedar" });
    await as("admin").agents.update({ ...config(), agentId, voicemailMessage: "" });
    expect((await as("member").agents.getConfig({ agentId })).voicemailMessage).toBeNull();
    for (const bad of [{ ringTimeoutSeconds: 4 }, { ringTimeoutSeconds: 121 }, { maxCallSeconds: 3601 }, { maxCallSeconds: 1.5 }, { voice: "robot" }, { voicemailMessage: "x".repeat(1001) }]) {
      expect(await codeOf(as("admin").agents.update({ ...config(), agentId, ...bad } as never)), JSON.stringify(bad).slice(0, 40)).toBe("INVALID_REQUEST");
    }
    expect((await as("member").agents.getConfig({ agentId })).ringTimeoutSeconds).toBe(20);
  });

  it("never touches another organization's agent or another agent's definitions", async () => {
    const mine = await createOrgWithRoles(db);
    const other = await createOrgWithRoles(db);
    const foreign = await createTestAgent(db, other.organization.id, { inputVariables: [{ slug: "secret" }] });
    expect(await codeOf(mine.as("admin").agents.getConfig({ agentId: foreign.id }))).toBe("AGENT_NOT_FOUND");
    expect(await codeOf(mine.as("admin").agents.update({ ...config(), agentId: foreign.id }))).toBe("AGENT_NOT_FOUND");
    const foreignVariableId = (await other.as("admin").agents.getConfig({ agentId: foreign.id })).inputVariables[0]!.id;
    const { agentId } = await mine.as("admin").agents.create(config());
    const error = await mine.as("admin").agents
      .update({ ...config(), agentId, inputVariables: [{ id: foreignVariableId, slug: "stolen", displayName: "", description: "", required: false }] })
      .catch((e: unknown) => e as Error);
    expect(appCodeOfError(error)).toBe("INVALID_REQUEST");
    expect((await other.as("admin").agents.getConfig({ agentId: foreign.id })).inputVariables[0]!.slug).toBe("secret");
  });

  it("lists with status filter and search (name substring or exact id), paged", async () => {
    const { as, organization } = await createOrgWithRoles(db);
    const paused = await createTestAgent(db, organization.id, { name: "Paused 100% agent", status: "PAUSED" });
    await createTestAgent(db, organization.id, { name: "Active agent" });
    const byStatus = await as("member").agents.listForConsole({ page: 1, status: "PAUSED" });
    expect(byStatus.agents.map((a) => a.agentId)).toEqual([paused.id]);
    expect((await as("member").agents.listForConsole({ page: 1, search: "100%" })).agents.map((a) => a.agentId)).toEqual([paused.id]);
    expect((await as("member").agents.listForConsole({ page: 1, search: "%" })).agents.map((a) => a.agentId)).toEqual([paused.id]);
    expect((await as("member").agents.listForConsole({ page: 1, search: paused.id })).agents).toHaveLength(1);
    expect((await as("member").agents.listForConsole({ page: 1, search: "AGENT" })).pagination.totalItems).toBe(2);
  });
});

describe("credits daily spend", () => {
  it("has every UTC day of the period and sums to the usage figure, with the same rules", async () => {
    const { as, organization } = await createOrgWithRoles(db);
    const { createTestTransaction } = await import("../../factories");
    const agent = await createTestAgent(db, organization.id);
    await createTestTransaction(db, { organizationId: organization.id, agentId: agent.id, credits: 3, createdAt: new Date("2026-03-01T00:00:00Z") });
    await createTestTransaction(db, { organizationId: organization.id, agentId: agent.id, credits: 2, createdAt: new Date("2026-03-31T23:59:59Z") });
    await createTestTransaction(db, { organizationId: organization.id, agentId: agent.id, credits: 7, createdAt: new Date("2026-04-01T00:00:00Z") });
    const daily = await as("member").credits.dailySpend({ month: "2026-03" });
    expect(daily.days).toHaveLength(31);
    expect(daily.days[0]).toEqual({ date: "2026-03-01", spentCredits: 3 });
    expect(daily.days[30]).toEqual({ date: "2026-03-31", spentCredits: 2 });
    const usage = await as("member").credits.usage({ month: "2026-03" });
    expect(daily.days.reduce((sum, d) => sum + d.spentCredits, 0)).toBe(usage.organization.spentCredits);
    expect(await codeOf(as("member").credits.dailySpend({ startDate: "2024-01-01", endDate: "2026-01-01" }))).toBe("INVALID_REQUEST");
  });
});
