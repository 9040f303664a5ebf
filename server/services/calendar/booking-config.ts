import type { DbOrTx } from "@/db";
import type { BookingConfig, BookingMode } from "@/db/schema";
import { AppError, invalidField } from "@/server/errors";
import type { ChiliPiperPermission } from "@/server/providers/chili-piper/permissions";
import { openProviderClient, refreshProviderPermissions } from "./provider-connection";

export const BOOKING_MODES: readonly BookingMode[] = ["link", "crm", "concierge"];

/** Needed for every setup (spec: workspace read, user read, meeting read). */
export const ALWAYS_REQUIRED_PERMISSIONS: readonly ChiliPiperPermission[] = ["workspace.read", "user.read", "meeting.read"];

/**
 * What each mode needs on top. Link: scheduling-links schedule (spec) and read (the link is verified on save).
 * Concierge: concierge read + schedule (spec). CRM: the spec names none; reading the handoff router and the
 * distribution on save and booking through the router need handoff read/schedule and distribution read.
 */
export const MODE_PERMISSIONS: Record<BookingMode, readonly ChiliPiperPermission[]> = {
  link: ["scheduling-links.read", "scheduling-links.schedule"],
  crm: ["handoff.read", "handoff.schedule", "distribution.read"],
  concierge: ["concierge.read", "concierge.schedule"],
};

export function requiredPermissionsFor(mode: BookingMode): ChiliPiperPermission[] {
  return [...ALWAYS_REQUIRED_PERMISSIONS, ...MODE_PERMISSIONS[mode]];
}

const MODE_NAMES: Record<BookingMode, string> = { link: "link-based", crm: "CRM-dependent", concierge: "concierge" };

function misconfigured(message: string, details?: Record<string, unknown>): AppError {
  return new AppError("AGENT_MISCONFIGURED", message, details);
}

function requireField(config: Omit<Partial<BookingConfig>, "mode">, field: Exclude<keyof BookingConfig, "mode">, mode: BookingMode): string {
  const value = config[field];
  if (typeof value !== "string" || value.trim() === "") {
    throw invalidField(`bookingConfig.${field}`, `is required for ${MODE_NAMES[mode]} booking`);
  }
  return value.trim();
}

export type ValidateBookingConfigParams = {
  organizationId: string;
  bookingConfig: Omit<Partial<BookingConfig>, "mode"> & { mode?: string };
  baseUrl?: string;
};

/**
 * Validates an agent's booking configuration against the organization's provider before it is saved, and returns
 * the normalized configuration to store (only the chosen mode's fields — there is no fallback to another mode —
 * plus the workspace the link or router belongs to). Permissions are read from the provider now, not from a cache.
 *
 * Raises INVALID_REQUEST when a field the mode needs is missing; AGENT_MISCONFIGURED when the provider is not
 * connected, the key lacks a permission (named in the message, listed in details.missingPermissions), or the
 * link / router / distribution / booker does not exist or does not fit the mode; PROVIDER_ERROR/UNAVAILABLE when
 * the provider cannot be asked.
 */
export async function validateBookingConfig(db: DbOrTx, params: ValidateBookingConfigParams): Promise<BookingConfig> {
  const config = params.bookingConfig;
  const mode = config.mode as BookingMode;
  if (!BOOKING_MODES.includes(mode)) {
    throw invalidField("bookingConfig.mode", `must be one of ${BOOKING_MODES.join(", ")}`);
  }
  if (config.provider !== undefined && config.provider !== "chili-piper") {
    throw invalidField("bookingConfig.provider", "only chili-piper is supported");
  }
  const fields = {
    link: () => ({ schedulingLinkId: requireField(config, "schedulingLinkId", mode) }),
    crm: () => ({
      routerId: requireField(config, "routerId", mode),
      distributionId: requireField(config, "distributionId", mode),
      workspaceId: requireField(config, "workspaceId", mode),
      bookerId: requireField(config, "bookerId", mode),
    }),
    concierge: () => ({ conciergeRouterId: requireField(config, "conciergeRouterId", mode) }),
  }[mode]();

  const opened = await openProviderClient(db, { organizationId: params.organizationId, baseUrl: params.baseUrl });
  if (!opened) throw misconfigured("Connect the organization's Chili Piper account before configuring calendar booking.");
  const { client } = opened;

  const granted = await refreshProviderPermissions(db, { organizationId: params.organizationId, client });
  const missing = requiredPermissionsFor(mode).filter((p) => !granted.includes(p));
  if (missing.length > 0) {
    throw misconfigured(
      `The Chili Piper API key lacks the ${missing.join(", ")} permission${missing.length > 1 ? "s" : ""} needed for ${MODE_NAMES[mode]} booking. Add ${missing.length > 1 ? "them" : "it"} to the token in Chili Piper (or use a full-access token) and reconnect.`,
      { missingPermissions: missing },
    );
  }

  if (mode === "link") {
    const id = (fields as { schedulingLinkId: string }).schedulingLinkId;
    const link = (await client.listSchedulingLinks()).find((l) => l.linkId === id || l.slug === id);
    if (!link) {
      throw misconfigured(`Scheduling link ${id} is not a round-robin, group, admin or ownership link of the connected Chili Piper account.`);
    }
    return { mode, provider: "chili-piper", schedulingLinkId: link.linkId, workspaceId: link.workspaceId };
  }

  if (mode === "concierge") {
    const id = (fields as { conciergeRouterId: string }).conciergeRouterId;
    const router = await client.getConciergeRouter(id);
    if (!router) throw misconfigured(`Concierge router ${id} does not exist in the connected Chili Piper account.`);
    return { mode, provider: "chili-piper", conciergeRouterId: router.id, workspaceId: router.workspaceId };
  }

  const crm = fields as { routerId: string; distributionId: string; workspaceId: string; bookerId: string };
  const workspaces = await client.listWorkspaces();
  if (!workspaces.some((w) => w.id === crm.workspaceId)) {
    throw misconfigured(`Workspace ${crm.workspaceId} does not exist in the connected Chili Piper account.`);
  }
  const router = await client.getHandoffRouter(crm.routerId);
  if (!router) throw misconfigured(`Handoff router ${crm.routerId} does not exist in the connected Chili Piper account.`);
  if (router.workspaceId !== crm.workspaceId) {
    throw misconfigured(`Handoff router ${crm.routerId} belongs to workspace ${router.workspaceId}, not ${crm.workspaceId}.`);
  }
  if (router.outcomes.some((o) => o.type === "Schedule" && !o.distributionId)) {
    throw misconfigured(`Handoff router ${crm.routerId} assigns some meetings directly to a user; CRM-dependent booking must assign through a distribution.`);
  }
  if (!router.outcomes.some((o) => o.distributionId === crm.distributionId)) {
    throw misconfigured(`Handoff router ${crm.routerId} does not route to distribution ${crm.distributionId}.`);
  }
  const distribution = (await client.listDistributions({ workspaceIds: [crm.workspaceId] })).find((d) => d.id === crm.distributionId);
  if (!distribution) throw misconfigured(`Distribution ${crm.distributionId} does not exist in workspace ${crm.workspaceId}.`);
  if (distribution.assignees.length === 0) {
    throw misconfigured(`Distribution "${distribution.name}" has no active assignees: add team members to it in Chili Piper.`);
  }
  const booker = await client.readUser(crm.bookerId);
  if (!booker) throw misconfigured(`Booker ${crm.bookerId} is not a user of the connected Chili Piper account.`);
  if (!booker.workspaces.includes(crm.workspaceId)) {
    throw misconfigured(`Booker ${booker.email} is not a member of workspace ${crm.workspaceId}.`);
  }
  return { mode, provider: "chili-piper", ...crm };
}
