import { describe, expect, it } from "vitest";
import { memberships } from "@/db/schema";
import { appCodeOfError } from "@/server/errors";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";
import { createTestAgent } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createOrgWithRoles, createUser, sessionCaller } from "./helpers";

const db = useTestDb();

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return "OK";
  } catch (error) {
    return appCodeOfError(error);
  }
}

const AGENT_CONFIG = {
  name: "Role test agent",
  status: "ACTIVE" as const,
  timezones: ["Europe/Berlin"],
  phoneNumbers: [] as string[],
  steps: [
    {
      stepType: "CALL" as const,
      delaySeconds: 0,
      delaySecondsMax: null,
      executionWindowConfig: { dayOffset: 0, timeWindow: { startTime: 540, endTime: 1020 }, timezoneSource: "contact" as const },
    },
  ],
  prompt: "Hello",
  bookingConfig: null,
  inputVariables: [],
  extractedVariables: [],
  outcomes: [],
};

describe("role checks at the procedure level", () => {
  it("API keys: admin only; support and member are refused on every procedure", async () => {
    const { as } = await createOrgWithRoles(db);
    const created = await as("admin").apiKeys.create({ name: "ci" });
    expect(created.key).toMatch(/^ock_/);
    expect((await as("admin").apiKeys.list()).apiKeys.map((k) => k.id)).toContain(created.id);
    for (const role of ["support", "member"] as const) {
      expect(await codeOf(as(role).apiKeys.list()), role).toBe("FORBIDDEN");
      expect(await codeOf(as(role).apiKeys.create({ name: "x" })), role).toBe("FORBIDDEN");
      expect(await codeOf(as(role).apiKeys.revoke({ keyId: created.id })), role).toBe("FORBIDDEN");
    }
    expect((await as("admin").apiKeys.list()).apiKeys.find((k) => k.id === created.id)?.revokedAt).toBeNull();
  });

  it("an API key can never manage keys or members (session only), even for its own organization", async () => {
    const { apiKey } = await createOrgWithRoles(db);
    const keyCaller = createCaller(createContext({ db, headers: new Headers({ "x-api-key": apiKey }), source: "rest" }));
    expect(await codeOf(keyCaller.apiKeys.list())).toBe("FORBIDDEN");
    expect(await codeOf(keyCaller.apiKeys.create({ name: "minted by a key" }))).toBe("FORBIDDEN");
    expect(await codeOf(keyCaller.members.list())).toBe("FORBIDDEN");
    expect(await codeOf(keyCaller.invitations.create({ email: "key@test.example", role: "admin" }))).toBe("FORBIDDEN");
  });

  it("an API key can create agents (POST /api/v1/agents: agents as code)", async () => {
    const { apiKey } = await createOrgWithRoles(db);
    const keyCaller = createCaller(createContext({ db, headers: new Headers({ "x-api-key": apiKey }), source: "rest" }));
    expect(await codeOf(keyCaller.agents.create(AGENT_CONFIG))).toBe("OK");
  });

  it("members: everyone reads, only admins invite, change roles and remove", async () => {
    const { as, people } = await createOrgWithRoles(db);
    for (const role of ["admin", "support", "member"] as const) {
      expect((await as(role).members.list()).members).toHaveLength(3);
    }
    for (const role of ["support", "member"] as const) {
      expect(await codeOf(as(role).invitations.create({ email: `x-${role}@test.example`, role: "admin" })), role).toBe("FORBIDDEN");
      expect(await codeOf(as(role).invitations.list()), role).toBe("FORBIDDEN");
      expect(await codeOf(as(role).members.changeRole({ userId: people[role].userId, role: "admin" })), role).toBe("FORBIDDEN");
      expect(await codeOf(as(role).members.remove({ userId: people.admin.userId })), role).toBe("FORBIDDEN");
    }
    expect((await as("member").members.list()).members.find((m) => m.userId === people.member.userId)?.role).toBe("member");
  });

  it("agent management: every role reads, only admins create and update", async () => {
    const { as, organization } = await createOrgWithRoles(db);
    const agent = await createTestAgent(db, organization.id);
    for (const role of ["admin", "support", "member"] as const) {
      expect((await as(role).agents.getConfig({ agentId: agent.id })).agentId).toBe(agent.id);
      expect((await as(role).agents.listForConsole({ page: 1 })).agents).toHaveLength(1);
    }
    for (const role of ["support", "member"] as const) {
      expect(await codeOf(as(role).agents.create(AGENT_CONFIG)), role).toBe("FORBIDDEN");
      expect(await codeOf(as(role).agents.update({ ...AGENT_CONFIG, agentId: agent.id })), role).toBe("FORBIDDEN");
    }
    expect((await as("admin").agents.update({ ...AGENT_CONFIG, agentId: agent.id })).agentId).toBe(agent.id);
  });

  it("refuses people outside the organization and requests without a session", async () => {
    const { organization, people } = await createOrgWithRoles(db);
    const outsider = await createUser(db);
    expect(await codeOf(sessionCaller(db, outsider, organization.orgId).agents.listForConsole({ page: 1 }))).toBe("FORBIDDEN");
    expect(await codeOf(sessionCaller(db, null, organization.orgId).agents.listForConsole({ page: 1 }))).toBe("UNAUTHORIZED");
    expect(await codeOf(sessionCaller(db, null, null).organizations.listMine())).toBe("UNAUTHORIZED");
    // An admin of one organization has no rights in another one.
    const other = await createOrgWithRoles(db);
    expect(await codeOf(sessionCaller(db, people.admin, other.organization.orgId).apiKeys.list())).toBe("FORBIDDEN");
  });

  it("a removed member loses access on the next call; a demoted admin loses admin rights at once", async () => {
    const { as, people, organization } = await createOrgWithRoles(db);
    const second = await createUser(db);
    await db.insert(memberships).values({ organizationId: organization.id, userId: second.userId, role: "admin" });
    const secondCaller = sessionCaller(db, second, organization.orgId);
    expect((await secondCaller.apiKeys.list()).apiKeys.length).toBeGreaterThan(0);
    await as("admin").members.changeRole({ userId: second.userId, role: "member" });
    expect(await codeOf(secondCaller.apiKeys.list())).toBe("FORBIDDEN");
    await as("admin").members.remove({ userId: people.support.userId });
    expect(await codeOf(as("support").members.list())).toBe("FORBIDDEN");
  });
});
