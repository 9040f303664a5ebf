import { and, asc, eq, isNotNull, ne } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { agents, users, type BookingMode } from "@/db/schema";
import { AppError } from "@/server/errors";
import { ProviderRequestError } from "@/server/providers/chili-piper/client";
import type { ChiliPiperPermission } from "@/server/providers/chili-piper/permissions";
import { BOOKING_MODES, requiredPermissionsFor } from "@/server/services/calendar/booking-config";
import {
  connectProvider,
  disconnectProvider,
  getProviderConnection,
  openProviderClient,
  refreshProviderPermissions,
  type ProviderConnectionSummary,
} from "@/server/services/calendar/provider-connection";

/** What the console shows per capability: what the key must allow, what it lacks, how many agents rely on it. */
export type CapabilityCheck = {
  capability: BookingMode | "meetings";
  required: ChiliPiperPermission[];
  missing: ChiliPiperPermission[];
  works: boolean;
  /** Agents (not archived) configured with this booking mode; for "meetings", every agent that books. */
  agentsUsing: number;
};

export type CalendarIntegration = {
  provider: "chili-piper";
  connected: boolean;
  connection:
    | (Omit<ProviderConnectionSummary, "connectedByUserId"> & { connectedBy: { name: string; email: string } | null })
    | null;
  capabilities: CapabilityCheck[];
  /** Agents (not archived) with a booking mode: they cannot book while the provider is not connected. */
  bookingAgents: number;
};

/** Cancel and add attendees on booked meetings (meetings API, console meeting panel). */
const MEETING_PERMISSIONS: ChiliPiperPermission[] = ["meeting.read", "meeting.modify"];

async function bookingModesInUse(db: DbOrTx, organizationId: string): Promise<Map<BookingMode, number>> {
  const rows = await db
    .select({ bookingConfig: agents.bookingConfig })
    .from(agents)
    .where(and(eq(agents.organizationId, organizationId), ne(agents.status, "ARCHIVED"), isNotNull(agents.bookingConfig)));
  const counts = new Map<BookingMode, number>();
  for (const row of rows) {
    const mode = row.bookingConfig?.mode;
    if (mode) counts.set(mode, (counts.get(mode) ?? 0) + 1);
  }
  return counts;
}

/** Which booking modes (and meeting management) the granted permissions allow. */
export function capabilityChecks(granted: readonly string[], inUse: Map<BookingMode, number>): CapabilityCheck[] {
  const has = new Set(granted);
  const check = (capability: CapabilityCheck["capability"], required: ChiliPiperPermission[], agentsUsing: number): CapabilityCheck => {
    const missing = required.filter((p) => !has.has(p));
    return { capability, required, missing, works: missing.length === 0, agentsUsing };
  };
  const bookingAgents = [...inUse.values()].reduce((a, b) => a + b, 0);
  return [...BOOKING_MODES.map((mode) => check(mode, requiredPermissionsFor(mode), inUse.get(mode) ?? 0)), check("meetings", MEETING_PERMISSIONS, bookingAgents)];
}

/** The organization's calendar provider as the Integrations page shows it: never the key, only its last 4 characters. */
export async function getCalendarIntegration(db: DbOrTx, params: { organizationId: string }): Promise<CalendarIntegration> {
  const [summary, inUse] = await Promise.all([getProviderConnection(db, params), bookingModesInUse(db, params.organizationId)]);
  const bookingAgents = [...inUse.values()].reduce((a, b) => a + b, 0);
  if (!summary) return { provider: "chili-piper", connected: false, connection: null, capabilities: capabilityChecks([], inUse), bookingAgents };
  const { connectedByUserId, ...rest } = summary;
  let connectedBy: { name: string; email: string } | null = null;
  if (connectedByUserId) {
    const [user] = await db.select({ name: users.name, email: users.email }).from(users).where(eq(users.id, connectedByUserId)).limit(1);
    connectedBy = user ?? null;
  }
  return { provider: "chili-piper", connected: true, connection: { ...rest, connectedBy }, capabilities: capabilityChecks(summary.permissions, inUse), bookingAgents };
}

/** Connects (or replaces) the organization's Chili Piper key, as the signed-in admin. The key is checked at the provider first. */
export async function connectCalendar(
  db: DbOrTx,
  params: { organizationId: string; apiKey: string; userId: string | null; now?: Date },
): Promise<CalendarIntegration> {
  await connectProvider(db, { organizationId: params.organizationId, apiKey: params.apiKey, connectedByUserId: params.userId, now: params.now });
  return getCalendarIntegration(db, params);
}

export type CalendarTestResult =
  | { ok: true; checkedAt: string; permissions: string[]; integration: CalendarIntegration }
  | { ok: false; message: string; integration: CalendarIntegration };

/** The provider's failure in words an admin can act on (never the key). */
export function describeProviderFailure(error: unknown): string {
  if (error instanceof ProviderRequestError) {
    if (error.providerStatus === 401) return "Chili Piper refused the stored API key: it may have been revoked or expired. Generate a new token in Chili Piper's Admin Center and replace the key.";
    if (error.providerStatus === 429) return "Chili Piper is limiting requests right now. Try again in a minute.";
    if (error.code === "PROVIDER_UNAVAILABLE") return `Chili Piper could not be reached. ${error.message}`;
    return `Chili Piper answered with an error. ${error.message}`;
  }
  if (error instanceof AppError) return error.message;
  throw error;
}

/**
 * A real round trip with the stored key: reads its permissions from the provider again (and remembers them).
 * A refusal or an unreachable provider is a result (ok: false, in plain language), not an error.
 */
export async function testCalendarConnection(db: DbOrTx, params: { organizationId: string; now?: Date }): Promise<CalendarTestResult> {
  let opened;
  try {
    opened = await openProviderClient(db, { organizationId: params.organizationId });
  } catch (error) {
    // The stored key cannot be decrypted (APP_ENCRYPTION_KEY changed): the admin must enter the key again.
    const message = error instanceof Error ? error.message : String(error);
    return { ok: false, message: `The stored key cannot be read (${message}). Connect the key again.`, integration: await getCalendarIntegration(db, params) };
  }
  if (!opened) throw new AppError("NOT_FOUND", "No calendar provider is connected: connect Chili Piper first.");
  const now = params.now ?? new Date();
  try {
    const permissions = await refreshProviderPermissions(db, { organizationId: params.organizationId, client: opened.client, now });
    return { ok: true, checkedAt: now.toISOString(), permissions, integration: await getCalendarIntegration(db, params) };
  } catch (error) {
    return { ok: false, message: describeProviderFailure(error), integration: await getCalendarIntegration(db, params) };
  }
}

/**
 * Removes the key. Agents that book meetings keep their booking mode; their bookings fail with "not connected"
 * (PROVIDER_NOT_CONNECTED on the call's meeting) until a key is connected again.
 */
export async function disconnectCalendar(db: DbOrTx, params: { organizationId: string }): Promise<{ disconnected: boolean; bookingAgents: number }> {
  const { disconnected } = await disconnectProvider(db, params);
  const inUse = await bookingModesInUse(db, params.organizationId);
  return { disconnected, bookingAgents: [...inUse.values()].reduce((a, b) => a + b, 0) };
}

/** Each agent's outbound numbers (not archived first by name; archived last), at most `limit`. */
export async function listAgentNumbers(db: DbOrTx, params: { organizationId: string; limit?: number }) {
  const limit = params.limit ?? 200;
  const rows = await db
    .select({ agentId: agents.id, name: agents.name, status: agents.status, phoneNumbers: agents.phoneNumbers })
    .from(agents)
    .where(eq(agents.organizationId, params.organizationId))
    .orderBy(asc(agents.name), asc(agents.id))
    .limit(limit + 1);
  const ordered = [...rows.slice(0, limit)].sort((a, b) => Number(a.status === "ARCHIVED") - Number(b.status === "ARCHIVED"));
  return { agents: ordered, truncated: rows.length > limit };
}
