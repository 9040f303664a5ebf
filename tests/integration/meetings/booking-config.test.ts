import { eq } from "drizzle-orm";
import { describe, expect, it } from "vitest";
import { providerConnections } from "@/db/schema";
import { AppError } from "@/server/errors";
import { CHILI_PIPER_PERMISSIONS } from "@/server/providers/chili-piper/permissions";
import { requiredPermissionsFor, validateBookingConfig } from "@/server/services/calendar/booking-config";
import { connectProvider, getProviderConnection } from "@/server/services/calendar/provider-connection";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { SIM_IDS } from "@/server/simulators/chili-piper";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { createConnectedOrganization, useChiliPiperSimulator } from "./helpers";

const db = useTestDb();
const sim = useChiliPiperSimulator();

async function rejection(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

describe("provider connection", () => {
  it("stores the key encrypted, reads the permissions from the provider and never returns the key", async () => {
    const { organization } = await createTestOrganization(db);
    const key = sim.current.createApiKey(["workspace.read", "user.read", "meeting.read", "concierge.read"]);
    const summary = await connectProvider(db, { organizationId: organization.id, apiKey: key });
    expect(summary.permissions.sort()).toEqual(["concierge.read", "meeting.read", "user.read", "workspace.read"]);
    expect(JSON.stringify(summary)).not.toContain(key);
    expect(JSON.stringify(await getProviderConnection(db, { organizationId: organization.id }))).not.toContain(key);

    const [row] = await db.select().from(providerConnections).where(eq(providerConnections.organizationId, organization.id));
    expect(JSON.stringify(row)).not.toContain(key);
    expect(row!.encryptedApiKey).toMatch(/^v1\./);
  });

  it("reads every permission of a full-access key", async () => {
    const { organization } = await createTestOrganization(db);
    const summary = await connectProvider(db, { organizationId: organization.id, apiKey: sim.current.createApiKey("full-access") });
    expect(summary.permissions.sort()).toEqual([...CHILI_PIPER_PERMISSIONS].sort());
  });

  it("refuses a key the provider rejects, and stores nothing", async () => {
    const { organization } = await createTestOrganization(db);
    const error = await rejection(connectProvider(db, { organizationId: organization.id, apiKey: "cpsim_not_a_real_key" }));
    expect(error.code).toBe("INVALID_REQUEST");
    expect(await getProviderConnection(db, { organizationId: organization.id })).toBeNull();
  });

  it("answers 503 when the provider is down while connecting", async () => {
    const { organization } = await createTestOrganization(db);
    sim.current.setDown(true);
    try {
      const error = await rejection(connectProvider(db, { organizationId: organization.id, apiKey: sim.current.defaultApiKey }));
      expect(error.code).toBe("PROVIDER_UNAVAILABLE");
    } finally {
      sim.current.setDown(false);
    }
  });
});

describe("booking configuration validated on save", () => {
  it("accepts each mode against the provider and normalizes it", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    expect(await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: { mode: "link", schedulingLinkId: SIM_IDS.links.group } })).toEqual({
      mode: "link",
      provider: "chili-piper",
      schedulingLinkId: SIM_IDS.links.group,
      workspaceId: SIM_IDS.workspaces.sales,
    });
    // Fields of other modes are dropped: an agent books through one mode only.
    const concierge = await validateBookingConfig(db, {
      organizationId: organization.id,
      bookingConfig: { mode: "concierge", conciergeRouterId: SIM_IDS.conciergeRouters.inbound, schedulingLinkId: SIM_IDS.links.roundRobin },
    });
    expect(concierge).toEqual({ mode: "concierge", provider: "chili-piper", conciergeRouterId: SIM_IDS.conciergeRouters.inbound, workspaceId: SIM_IDS.workspaces.sales });
    expect(await validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("crm") })).toEqual(simulatorBookingConfig("crm"));
    for (const type of ["roundRobin", "admin", "ownership"] as const) {
      await expect(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: { mode: "link", schedulingLinkId: SIM_IDS.links[type] } })).resolves.toMatchObject({ mode: "link" });
    }
  });

  it("refuses a key missing a mode's permission, naming it", async () => {
    for (const mode of ["link", "crm", "concierge"] as const) {
      for (const missing of requiredPermissionsFor(mode)) {
        const granted = CHILI_PIPER_PERMISSIONS.filter((p) => p !== missing);
        const { organization } = await createConnectedOrganization(db, sim.current, granted);
        const error = await rejection(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig(mode) }));
        expect(error.code, `${mode} without ${missing}`).toBe("AGENT_MISCONFIGURED");
        expect(error.message).toContain(missing);
        expect(error.details).toEqual({ missingPermissions: [missing] });
      }
    }
  });

  it("lists every missing permission at once", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current, ["workspace.read", "meeting.read"]);
    const error = await rejection(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("concierge") }));
    expect(error.details).toEqual({ missingPermissions: ["user.read", "concierge.read", "concierge.schedule"] });
    expect(error.message).toMatch(/user\.read, concierge\.read, concierge\.schedule permissions/);
  });

  it("reads permissions at configuration time, not from the connection made earlier", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current, ["workspace.read", "user.read", "meeting.read"]);
    const stored = await getProviderConnection(db, { organizationId: organization.id });
    expect(stored?.permissions).not.toContain("scheduling-links.schedule");
    const apiKeyEntry = sim.current.state.tenant.apiKeys.at(-1)!;
    apiKeyEntry.permissions.push("scheduling-links.read", "scheduling-links.schedule");
    await expect(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") })).resolves.toMatchObject({ mode: "link" });
    expect((await getProviderConnection(db, { organizationId: organization.id }))?.permissions).toContain("scheduling-links.schedule");
  });

  it("requires workspaceId and bookerId (and the router and distribution) for CRM-dependent booking", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const full = simulatorBookingConfig("crm");
    for (const field of ["workspaceId", "bookerId", "routerId", "distributionId"] as const) {
      const error = await rejection(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: { ...full, [field]: undefined } }));
      expect(error.code).toBe("INVALID_REQUEST");
      expect(error.message).toContain(`bookingConfig.${field}`);
    }
  });

  it("refuses configurations that do not fit the mode", async () => {
    const { organization } = await createConnectedOrganization(db, sim.current);
    const crm = simulatorBookingConfig("crm");
    const cases: Array<[string, Record<string, unknown>, RegExp]> = [
      ["personal link", { mode: "link", schedulingLinkId: SIM_IDS.links.personal }, /not a round-robin, group, admin or ownership link/],
      ["unknown link", { mode: "link", schedulingLinkId: "nope" }, /not a round-robin/],
      ["unknown concierge router", { mode: "concierge", conciergeRouterId: "c0000000-0000-4000-8000-00000000ffff" }, /does not exist/],
      ["router not using the distribution", { ...crm, distributionId: SIM_IDS.distributions.empty }, /does not route to distribution/],
      ["distribution without assignees", { ...crm, routerId: SIM_IDS.handoffRouters.unstaffed, distributionId: SIM_IDS.distributions.empty }, /no active assignees/],
      ["router assigning directly to a user", { ...crm, routerId: SIM_IDS.handoffRouters.direct }, /directly to a user/],
      ["booker outside the workspace", { ...crm, bookerId: SIM_IDS.users.pat }, /not a member of workspace/],
      ["unknown workspace", { ...crm, workspaceId: "ws-unknown" }, /Workspace ws-unknown does not exist/],
    ];
    for (const [label, bookingConfig, message] of cases) {
      const error = await rejection(validateBookingConfig(db, { organizationId: organization.id, bookingConfig }));
      expect(error.code, label).toBe("AGENT_MISCONFIGURED");
      expect(error.message, label).toMatch(message);
    }
    const badMode = await rejection(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: { mode: "fallback" } }));
    expect(badMode.code).toBe("INVALID_REQUEST");
  });

  it("refuses to configure booking before the organization connects a provider", async () => {
    const { organization } = await createTestOrganization(db);
    const error = await rejection(validateBookingConfig(db, { organizationId: organization.id, bookingConfig: simulatorBookingConfig("link") }));
    expect(error.code).toBe("AGENT_MISCONFIGURED");
    expect(error.message).toMatch(/Connect the organization's Chili Piper account/);
  });
});
