import type { DbOrTx } from "@/db";
import type { BookingConfig, BookingMode } from "@/db/schema";
import { SIM_CRM_CONTACT_DOMAIN, SIM_DEFAULT_API_KEY, SIM_IDS } from "@/server/simulators/chili-piper/fixtures";
import { ensureEmbeddedChiliPiperSimulator } from "@/server/simulators/chili-piper/embedded";
import { connectProvider, type ProviderConnectionSummary } from "./provider-connection";

/**
 * Valid booking configurations for each mode against the simulator's default tenant (stable IDs), for the demo
 * seed and tests. Link: the "Intro call" round-robin link; CRM: the SDR→AE handoff router through the AE round-robin
 * distribution, booked by Sam (SDR); concierge: the "Inbound demo request" router.
 */
export function simulatorBookingConfig(mode: BookingMode): BookingConfig {
  switch (mode) {
    case "link":
      return { mode, provider: "chili-piper", schedulingLinkId: SIM_IDS.links.roundRobin, workspaceId: SIM_IDS.workspaces.sales };
    case "crm":
      return {
        mode,
        provider: "chili-piper",
        routerId: SIM_IDS.handoffRouters.sdrToAe,
        distributionId: SIM_IDS.distributions.aeRoundRobin,
        workspaceId: SIM_IDS.workspaces.sales,
        bookerId: SIM_IDS.users.sam,
      };
    case "concierge":
      return { mode, provider: "chili-piper", conciergeRouterId: SIM_IDS.conciergeRouters.inbound, workspaceId: SIM_IDS.workspaces.sales };
  }
}

/** Contacts at this domain exist in the simulated CRM, so CRM-dependent bookings of them succeed. */
export const SIMULATOR_CRM_CONTACT_DOMAIN = SIM_CRM_CONTACT_DOMAIN;

/**
 * Embedded demo: makes sure the simulator runs (starting it in this process if no other process serves it) and
 * connects the organization with the simulator's full-access key.
 */
export async function connectSimulatorProvider(db: DbOrTx, params: { organizationId: string }): Promise<ProviderConnectionSummary> {
  const simulator = await ensureEmbeddedChiliPiperSimulator();
  return connectProvider(db, { organizationId: params.organizationId, apiKey: SIM_DEFAULT_API_KEY, baseUrl: simulator?.url });
}
