import { describe, expect, it } from "vitest";
import { createTestAgent } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles } from "../dashboard/helpers";

const db = useTestDb();
const api = apiClient(db);

describe("agent calling limits (console) and GET /agents", () => {
  it("admins set caps and auto-pause; GET /agents shows them; absent fields keep their value, null removes a cap", async () => {
    const { organization, apiKey, as } = await createOrgWithRoles(db);
    const agent = await createTestAgent(db, organization.id, { name: "Capped" });
    expect(await as("member").agents.callingLimits({ agentId: agent.id })).toEqual({
      agentId: agent.id,
      status: "ACTIVE",
      pauseReason: null,
      maxConcurrentCalls: null,
      dailyCreditCap: null,
      autoPause: { enabled: true, windowCalls: 50, failurePercent: 30 },
    });
    await expect(as("support").agents.updateCallingLimits({ agentId: agent.id, maxConcurrentCalls: 5 })).rejects.toMatchObject({ code: "FORBIDDEN" });
    const updated = await as("admin").agents.updateCallingLimits({ agentId: agent.id, maxConcurrentCalls: 5, dailyCreditCap: 300, autoPause: { windowCalls: 20, failurePercent: 40 } });
    expect(updated).toMatchObject({ maxConcurrentCalls: 5, dailyCreditCap: 300, autoPause: { enabled: true, windowCalls: 20, failurePercent: 40 } });
    expect(await as("admin").agents.updateCallingLimits({ agentId: agent.id, dailyCreditCap: null, autoPause: { enabled: false } })).toMatchObject({
      maxConcurrentCalls: 5,
      dailyCreditCap: null,
      autoPause: { enabled: false, windowCalls: 20, failurePercent: 40 },
    });

    const listed = await api("/agents", { key: apiKey, query: { orgId: organization.orgId } });
    expect(listed.body.agents).toEqual([
      {
        agentId: agent.id,
        name: "Capped",
        status: "ACTIVE",
        callingLimits: { maxConcurrentCalls: 5, dailyCreditCap: null, autoPause: { enabled: false, windowCalls: 20, failurePercent: 40 } },
        pauseReason: null,
      },
    ]);
  });

  it("refuses out-of-range values", async () => {
    const { organization, as } = await createOrgWithRoles(db);
    const agent = await createTestAgent(db, organization.id);
    const bad = [
      { maxConcurrentCalls: 0 },
      { maxConcurrentCalls: 10_001 },
      { dailyCreditCap: -1 },
      { dailyCreditCap: 1.5 },
      { autoPause: { windowCalls: 4 } },
      { autoPause: { windowCalls: 1001 } },
      { autoPause: { failurePercent: 0 } },
      { autoPause: { failurePercent: 101 } },
    ];
    for (const change of bad) {
      await expect(as("admin").agents.updateCallingLimits({ agentId: agent.id, ...change })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    }
  });

  it("another organization's agent is not found", async () => {
    const mine = await createOrgWithRoles(db);
    const other = await createOrgWithRoles(db);
    const agent = await createTestAgent(db, other.organization.id);
    await expect(mine.as("admin").agents.updateCallingLimits({ agentId: agent.id, maxConcurrentCalls: 3 })).rejects.toMatchObject({ code: "NOT_FOUND" });
    await expect(mine.as("member").agents.callingLimits({ agentId: agent.id })).rejects.toMatchObject({ code: "NOT_FOUND" });
    expect((await other.as("member").agents.callingLimits({ agentId: agent.id })).maxConcurrentCalls).toBeNull();
  });
});
