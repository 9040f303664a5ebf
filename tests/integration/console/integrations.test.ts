import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { agents, providerConnections } from "@/db/schema";
import { bookMeetingForCall } from "@/server/services/calendar/book-meeting";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { useTestDb } from "../../helpers/db";
import { createTestAgent, createTestOrganization, testPoolNumbers } from "../../factories";
import { createCallToBook, useChiliPiperSimulator } from "../meetings/helpers";
import { apiKeyCaller, consoleCaller, consoleUser } from "./helpers";

const simulator = useChiliPiperSimulator();
const db = useTestDb();

const LINK_ONLY = ["workspace.read", "user.read", "meeting.read", "scheduling-links.read", "scheduling-links.schedule"];

async function orgWithBookingAgents() {
  const { organization, apiKey } = await createTestOrganization(db, { name: "Integrations" });
  const linkAgent = await createTestAgent(db, organization.id, { name: "Link booker", phoneNumbers: await testPoolNumbers(db, organization.id, ["201", "201"]) });
  const crmAgent = await createTestAgent(db, organization.id, { name: "CRM booker", phoneNumbers: await testPoolNumbers(db, organization.id, ["201"]) });
  const archived = await createTestAgent(db, organization.id, { name: "Old concierge", phoneNumbers: [] });
  // Booking modes set directly: the agent editor validates them against a connected provider, which is what we test here.
  await db.update(agents).set({ bookingConfig: simulatorBookingConfig("link") }).where(eq(agents.id, linkAgent.id));
  await db.update(agents).set({ bookingConfig: simulatorBookingConfig("crm") }).where(eq(agents.id, crmAgent.id));
  await db.update(agents).set({ bookingConfig: simulatorBookingConfig("concierge"), status: "ARCHIVED" }).where(eq(agents.id, archived.id));
  return { organization, apiKey, linkAgent, crmAgent, archived };
}

describe("integrations (console)", () => {
  it("connects a key entered once, never returns it, and shows which booking modes its permissions allow", async () => {
    const data = await orgWithBookingAgents();
    const { userId, caller: admin } = await consoleUser(db, data.organization.id, "admin");
    const providerKey = simulator.current.createApiKey(LINK_ONLY);

    const before = await admin.integrations.get();
    expect(before.calendar).toMatchObject({ connected: false, connection: null, bookingAgents: 2 });
    expect(before.calendar.capabilities.every((c) => !c.works)).toBe(true);

    const connected = await admin.integrations.connectCalendar({ apiKey: `  ${providerKey}  ` });
    expect(connected.connected).toBe(true);
    expect(connected.connection).toMatchObject({ keyHint: providerKey.slice(-4), connectedBy: { name: "admin", email: `${userId}@example.test` } });
    expect(connected.connection!.permissions.sort()).toEqual([...LINK_ONLY].sort());
    const byCapability = new Map(connected.capabilities.map((c) => [c.capability, c]));
    expect(byCapability.get("link")).toMatchObject({ works: true, missing: [], agentsUsing: 1 });
    expect(byCapability.get("crm")).toMatchObject({ works: false, missing: ["handoff.read", "handoff.schedule", "distribution.read"], agentsUsing: 1 });
    expect(byCapability.get("concierge")).toMatchObject({ works: false, missing: ["concierge.read", "concierge.schedule"], agentsUsing: 0 });
    expect(byCapability.get("meetings")).toMatchObject({ works: false, missing: ["meeting.modify"], agentsUsing: 2 });

    // The key is stored encrypted and is in no answer, not even a member's.
    const [row] = await db.select().from(providerConnections).where(eq(providerConnections.organizationId, data.organization.id));
    expect(row!.encryptedApiKey).not.toContain(providerKey);
    const member = await consoleCaller(db, data.organization.id, "member");
    const seen = await member.integrations.get();
    expect(JSON.stringify(connected)).not.toContain(providerKey);
    expect(JSON.stringify(seen)).not.toContain(providerKey);
    expect(seen.calendar.connection?.keyHint).toBe(providerKey.slice(-4));

    // The agents' numbers (archived last), and the voice engine with no secret.
    expect(seen.agentNumbers.agents.map((a) => [a.name, a.phoneNumbers])).toEqual([
      ["CRM booker", data.crmAgent.phoneNumbers],
      ["Link booker", data.linkAgent.phoneNumbers],
      ["Old concierge", []],
    ]);
    expect(seen.voiceEngine.engine).toBe("simulator");

    // Replacing the key with a full-access one: every mode works.
    const full = await admin.integrations.connectCalendar({ apiKey: simulator.current.createApiKey("full-access") });
    expect(full.capabilities.every((c) => c.works)).toBe(true);
  });

  it("tests the connection with a real call and reports the provider's refusal in plain language", async () => {
    const data = await orgWithBookingAgents();
    const admin = await consoleCaller(db, data.organization.id, "admin");
    await expect(admin.integrations.testCalendar()).rejects.toMatchObject({ cause: { code: "NOT_FOUND" } });

    const providerKey = simulator.current.createApiKey(LINK_ONLY);
    await admin.integrations.connectCalendar({ apiKey: providerKey });
    const served = simulator.current.requests.length;
    const ok = await admin.integrations.testCalendar();
    expect(ok).toMatchObject({ ok: true });
    expect(ok.ok && ok.permissions.sort()).toEqual([...LINK_ONLY].sort());
    expect(simulator.current.requests.length).toBeGreaterThan(served);

    // The provider grants more to the same key: a test reads the permissions again.
    const keyEntry = simulator.current.state.tenant.apiKeys.find((k) => k.key === providerKey)!;
    keyEntry.permissions.push("concierge.read", "concierge.schedule");
    const again = await admin.integrations.testCalendar();
    expect(again.integration.capabilities.find((c) => c.capability === "concierge")).toMatchObject({ works: true });

    simulator.current.setDown(true);
    try {
      const down = await admin.integrations.testCalendar();
      expect(down).toMatchObject({ ok: false, message: expect.stringContaining("Chili Piper could not be reached") });
    } finally {
      simulator.current.setDown(false);
    }

    // The key is revoked at the provider.
    simulator.current.state.tenant.apiKeys.splice(simulator.current.state.tenant.apiKeys.indexOf(keyEntry), 1);
    const revoked = await admin.integrations.testCalendar();
    expect(revoked).toMatchObject({ ok: false, message: expect.stringContaining("refused the stored API key") });
    expect(JSON.stringify(revoked)).not.toContain(providerKey);
  });

  it("refuses a key the provider rejects and stores nothing; bounds the key's length", async () => {
    const data = await orgWithBookingAgents();
    const admin = await consoleCaller(db, data.organization.id, "admin");
    await expect(admin.integrations.connectCalendar({ apiKey: "cpsim_not_a_key_0000000000" })).rejects.toMatchObject({
      cause: { code: "INVALID_REQUEST", message: expect.stringContaining("rejected this API key") },
    });
    expect((await admin.integrations.get()).calendar.connected).toBe(false);
    await expect(admin.integrations.connectCalendar({ apiKey: "" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(admin.integrations.connectCalendar({ apiKey: "   " })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(admin.integrations.connectCalendar({ apiKey: "x".repeat(513) })).rejects.toMatchObject({ code: "BAD_REQUEST" });
    await expect(admin.integrations.connectCalendar({ apiKey: "two words" })).rejects.toMatchObject({ code: "BAD_REQUEST" });
  });

  it("disconnects: booking agents are counted and their bookings then fail as not connected", async () => {
    const data = await orgWithBookingAgents();
    const admin = await consoleCaller(db, data.organization.id, "admin");
    await admin.integrations.connectCalendar({ apiKey: simulator.current.createApiKey("full-access") });
    expect(await admin.integrations.disconnectCalendar()).toEqual({ disconnected: true, bookingAgents: 2 });
    expect((await admin.integrations.get()).calendar).toMatchObject({ connected: false, connection: null });
    expect(await admin.integrations.disconnectCalendar()).toEqual({ disconnected: false, bookingAgents: 2 });
    const rows = await db.select().from(providerConnections).where(eq(providerConnections.organizationId, data.organization.id));
    expect(rows).toEqual([]);
    // What the confirmation says: an agent that books meetings fails its booking clearly.
    const call = await createCallToBook(db, { organizationId: data.organization.id, agentId: data.linkAgent.id });
    expect(await bookMeetingForCall(db, { callId: call.id })).toMatchObject({ status: "failed", errorCode: "PROVIDER_NOT_CONNECTED" });
  });

  it("members and support read only; API keys are refused; another organization sees nothing of it", async () => {
    const data = await orgWithBookingAgents();
    const admin = await consoleCaller(db, data.organization.id, "admin");
    await admin.integrations.connectCalendar({ apiKey: simulator.current.createApiKey("full-access") });
    for (const role of ["member", "support"] as const) {
      const caller = await consoleCaller(db, data.organization.id, role);
      expect((await caller.integrations.get()).calendar.connected).toBe(true);
      const forbidden = { cause: { code: "FORBIDDEN" } };
      await expect(caller.integrations.connectCalendar({ apiKey: simulator.current.createApiKey("full-access") })).rejects.toMatchObject(forbidden);
      await expect(caller.integrations.testCalendar()).rejects.toMatchObject(forbidden);
      await expect(caller.integrations.disconnectCalendar()).rejects.toMatchObject(forbidden);
    }
    expect((await admin.integrations.get()).calendar.connected).toBe(true);
    await expect(apiKeyCaller(db, data.apiKey).integrations.get()).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });
    await expect(apiKeyCaller(db, data.apiKey).integrations.disconnectCalendar()).rejects.toMatchObject({ cause: { code: "FORBIDDEN" } });

    const { organization: other } = await createTestOrganization(db, { name: "Other" });
    const otherAdmin = await consoleCaller(db, other.id, "admin");
    const seen = await otherAdmin.integrations.get();
    expect(seen.calendar).toMatchObject({ connected: false, connection: null, bookingAgents: 0 });
    expect(seen.agentNumbers.agents).toEqual([]);
    await expect(otherAdmin.integrations.testCalendar()).rejects.toMatchObject({ cause: { code: "NOT_FOUND" } });
    expect(await otherAdmin.integrations.disconnectCalendar()).toEqual({ disconnected: false, bookingAgents: 0 });
    expect((await admin.integrations.get()).calendar.connected).toBe(true);
  });
});
