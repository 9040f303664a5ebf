import { CHILI_PIPER_PERMISSIONS } from "@/server/providers/chili-piper/permissions";

/**
 * The simulator's default tenant: stable IDs (the same on every start), so demo agents' booking configurations
 * keep working across restarts. Everything here is fictional.
 */
export const SIM_IDS = {
  workspaces: {
    sales: "6f1c2a40-5b7e-4d1a-9c3e-0a1b2c3d4e01",
    partners: "6f1c2a40-5b7e-4d1a-9c3e-0a1b2c3d4e02",
  },
  users: {
    alex: "0b8e7d52-1f3a-4c6b-8d9e-7a6b5c4d3e01",
    blair: "0b8e7d52-1f3a-4c6b-8d9e-7a6b5c4d3e02",
    casey: "0b8e7d52-1f3a-4c6b-8d9e-7a6b5c4d3e03",
    sam: "0b8e7d52-1f3a-4c6b-8d9e-7a6b5c4d3e04",
    pat: "0b8e7d52-1f3a-4c6b-8d9e-7a6b5c4d3e05",
  },
  distributions: {
    aeRoundRobin: "d15b0000-0000-4000-8000-000000000001",
    partnerTeam: "d15b0000-0000-4000-8000-000000000002",
    empty: "d15b0000-0000-4000-8000-000000000003",
  },
  meetingTypes: {
    discovery: "7e000000-0000-4000-8000-000000000001",
    onsite: "7e000000-0000-4000-8000-000000000002",
  },
  links: {
    roundRobin: "a1100000-0000-4000-8000-000000000001",
    group: "a1100000-0000-4000-8000-000000000002",
    admin: "a1100000-0000-4000-8000-000000000003",
    ownership: "a1100000-0000-4000-8000-000000000004",
    personal: "a1100000-0000-4000-8000-000000000005",
  },
  handoffRouters: {
    sdrToAe: "4a000000-0000-4000-8000-000000000001",
    direct: "4a000000-0000-4000-8000-000000000002",
    unstaffed: "4a000000-0000-4000-8000-000000000003",
  },
  conciergeRouters: {
    inbound: "c0000000-0000-4000-8000-000000000001",
    onsite: "c0000000-0000-4000-8000-000000000002",
  },
} as const;

/** The full-access key the default tenant accepts. A simulator credential, not a secret of anyone's. */
export const SIM_DEFAULT_API_KEY = "cpsim_full_access_5f0c1e7a9b2d4c6e8f0a1b3c5d7e9f1a";

/** Any address at this domain exists as a contact in the simulated CRM (owned by Alex), besides the listed ones. */
export const SIM_CRM_CONTACT_DOMAIN = "crm.example.com";

export type SimUser = { id: string; name: string; email: string; timeZone: string; workspaces: string[] };
export type SimWorkspace = { id: string; name: string };
export type SimDistribution = { id: string; name: string; workspaceId: string; assignees: string[] };
export type SimLocation = { type: "Video"; joinUrlBase: string } | { type: "InPerson"; address: string };
export type SimMeetingType = { id: string; name: string; durationMinutes: number; location: SimLocation };
export type SimLinkType = "round-robin" | "group" | "admin-one-on-one" | "ownership" | "personal";
export type SimLink = {
  id: string;
  type: SimLinkType;
  name: string;
  slug: string;
  workspaceId: string;
  meetingTypeId: string;
  /** round-robin and ownership (fallback): the distribution; group/admin/personal: the fixed host. */
  distributionId?: string;
  hostUserId?: string;
  memberUserIds?: string[];
};
export type SimRouterOutcome = { type: "Schedule"; distributionId?: string; userId?: string; meetingTypeId: string };
export type SimHandoffRouter = { id: string; name: string; workspaceId: string; catchAll: SimRouterOutcome };
export type SimConciergeRouter = {
  id: string;
  name: string;
  slug: string;
  workspaceId: string;
  catchAll: SimRouterOutcome;
};
export type SimCrmContact = { email: string; firstName?: string; lastName?: string; ownerUserId: string };

export type SimTenant = {
  workspaces: SimWorkspace[];
  users: SimUser[];
  distributions: SimDistribution[];
  meetingTypes: SimMeetingType[];
  links: SimLink[];
  handoffRouters: SimHandoffRouter[];
  conciergeRouters: SimConciergeRouter[];
  crmContacts: SimCrmContact[];
  crmContactDomains: string[];
  apiKeys: Array<{ key: string; permissions: string[] }>;
};

export function defaultTenant(): SimTenant {
  const { workspaces: ws, users: u, distributions: d, meetingTypes: mt } = SIM_IDS;
  return {
    workspaces: [
      { id: ws.sales, name: "Sales" },
      { id: ws.partners, name: "Partners" },
    ],
    users: [
      { id: u.alex, name: "Alex Rivera", email: "alex.rivera@sim-acme.example", timeZone: "America/New_York", workspaces: [ws.sales] },
      { id: u.blair, name: "Blair Chen", email: "blair.chen@sim-acme.example", timeZone: "America/Chicago", workspaces: [ws.sales] },
      { id: u.casey, name: "Casey Morgan", email: "casey.morgan@sim-acme.example", timeZone: "America/Los_Angeles", workspaces: [ws.sales, ws.partners] },
      { id: u.sam, name: "Sam Patel (SDR)", email: "sam.patel@sim-acme.example", timeZone: "America/New_York", workspaces: [ws.sales] },
      { id: u.pat, name: "Pat Kim", email: "pat.kim@sim-acme.example", timeZone: "Europe/London", workspaces: [ws.partners] },
    ],
    distributions: [
      { id: d.aeRoundRobin, name: "AE round robin", workspaceId: ws.sales, assignees: [u.alex, u.blair] },
      { id: d.partnerTeam, name: "Partner team", workspaceId: ws.partners, assignees: [u.casey, u.pat] },
      { id: d.empty, name: "Unstaffed queue", workspaceId: ws.sales, assignees: [] },
    ],
    meetingTypes: [
      { id: mt.discovery, name: "Discovery call (30 min)", durationMinutes: 30, location: { type: "Video", joinUrlBase: "https://meet.sim-acme.example/j/" } },
      { id: mt.onsite, name: "On-site visit (30 min)", durationMinutes: 30, location: { type: "InPerson", address: "500 Market Street, Suite 300, San Francisco, CA 94105" } },
    ],
    links: [
      { id: SIM_IDS.links.roundRobin, type: "round-robin", name: "Intro call", slug: "intro-call", workspaceId: ws.sales, meetingTypeId: mt.discovery, distributionId: d.aeRoundRobin },
      { id: SIM_IDS.links.group, type: "group", name: "Team demo", slug: "team-demo", workspaceId: ws.sales, meetingTypeId: mt.discovery, hostUserId: u.alex, memberUserIds: [u.blair] },
      { id: SIM_IDS.links.admin, type: "admin-one-on-one", name: "Casey 1:1", slug: "casey-1-1", workspaceId: ws.partners, meetingTypeId: mt.discovery, hostUserId: u.casey },
      { id: SIM_IDS.links.ownership, type: "ownership", name: "Talk to your account owner", slug: "account-owner", workspaceId: ws.sales, meetingTypeId: mt.discovery, distributionId: d.aeRoundRobin },
      { id: SIM_IDS.links.personal, type: "personal", name: "Alex personal", slug: "alex-rivera", workspaceId: ws.sales, meetingTypeId: mt.discovery, hostUserId: u.alex },
    ],
    handoffRouters: [
      { id: SIM_IDS.handoffRouters.sdrToAe, name: "SDR to AE handoff", workspaceId: ws.sales, catchAll: { type: "Schedule", distributionId: d.aeRoundRobin, meetingTypeId: mt.discovery } },
      { id: SIM_IDS.handoffRouters.direct, name: "Direct to Alex", workspaceId: ws.sales, catchAll: { type: "Schedule", userId: u.alex, meetingTypeId: mt.discovery } },
      { id: SIM_IDS.handoffRouters.unstaffed, name: "Unstaffed handoff", workspaceId: ws.sales, catchAll: { type: "Schedule", distributionId: d.empty, meetingTypeId: mt.discovery } },
    ],
    conciergeRouters: [
      { id: SIM_IDS.conciergeRouters.inbound, name: "Inbound demo request", slug: "inbound-demo-request", workspaceId: ws.sales, catchAll: { type: "Schedule", distributionId: d.aeRoundRobin, meetingTypeId: mt.discovery } },
      { id: SIM_IDS.conciergeRouters.onsite, name: "On-site visit", slug: "on-site-visit", workspaceId: ws.partners, catchAll: { type: "Schedule", distributionId: d.partnerTeam, meetingTypeId: mt.onsite } },
    ],
    crmContacts: [
      { email: "jordan.lee@northwind.example", firstName: "Jordan", lastName: "Lee", ownerUserId: u.blair },
      { email: "taylor.brooks@contoso.example", firstName: "Taylor", lastName: "Brooks", ownerUserId: u.alex },
    ],
    crmContactDomains: [SIM_CRM_CONTACT_DOMAIN],
    apiKeys: [{ key: SIM_DEFAULT_API_KEY, permissions: [...CHILI_PIPER_PERMISSIONS] }],
  };
}
