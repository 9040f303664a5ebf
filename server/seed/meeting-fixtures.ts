import { and, eq, isNotNull } from "drizzle-orm";
import type { Db } from "@/db";
import { agents, calls, type BookingMode } from "@/db/schema";
import { validateBookingConfig } from "@/server/services/calendar/booking-config";
import { connectSimulatorProvider, SIMULATOR_CRM_CONTACT_DOMAIN, simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { seedOneSequence } from "@/server/services/call-engine/seed-call-history";

const BOOKING_ROLES: BookingMode[] = ["link", "crm", "concierge"];

/**
 * Connects the organization to the calendar provider (the local Chili Piper simulator in embedded mode) and gives
 * the demo agents with the roles `link`, `crm` and `concierge` their booking mode, validated like a console save.
 */
export async function configureDemoBooking(db: Db, params: { organizationId: string; agentsByRole: Map<string, string> }) {
  await connectSimulatorProvider(db, { organizationId: params.organizationId });
  for (const mode of BOOKING_ROLES) {
    const agentId = params.agentsByRole.get(mode);
    if (!agentId) continue;
    const bookingConfig = await validateBookingConfig(db, { organizationId: params.organizationId, bookingConfig: simulatorBookingConfig(mode) });
    await db.update(agents).set({ bookingConfig }).where(eq(agents.id, agentId));
  }
}

export type MeetingFixtures = {
  futureMeetingEntityId: string | null;
  pastMeetingEntityId: string | null;
  cancellableMeetingEntityId: string | null;
  cancellableMeetingSequenceId: string | null;
  cancellableMeetingEntityId2: string | null;
};

/**
 * DESIGN §9 meetings, booked through the same path as any call: digit-0 contacts enrolled on the link agent and
 * driven through the engine, whose calls book through the provider. One call ten days ago (a past meeting) and
 * three calls within the last hour (future meetings: one to look at, two to cancel).
 */
export async function seedMeetingFixtures(db: Db, params: { organizationId: string; agentId: string; now: Date }): Promise<MeetingFixtures> {
  const enrollments = [10 * 24 * 60, 50, 40, 30];
  const booked: Array<{ sequenceId: string; callId: string; startTime: Date }> = [];
  for (const [index, minutesAgo] of enrollments.entries()) {
    const sequenceId = await seedOneSequence(db, {
      organizationId: params.organizationId,
      agentId: params.agentId,
      contact: {
        name: ["Grace Hopper", "Alan Turing", "Katherine Johnson", "Edsger Dijkstra"][index]!,
        // 555-01XX is the fictional range; the last digit 0 makes the simulated call reach its goal and book.
        phoneNumber: `+121255501${index}0`,
        timezone: "America/New_York",
        email: `meeting.fixture${index}@${SIMULATOR_CRM_CONTACT_DOMAIN}`,
        variables: { company_name: "Fixture Corp", crm_ref: `MEET-${index + 1}`, account: "Enterprise" },
      },
      enrolledAt: new Date(params.now.getTime() - minutesAgo * 60_000),
      until: params.now,
    });
    if (!sequenceId) continue;
    const [call] = await db
      .select({ id: calls.id, meeting: calls.followUpMeetingDetails })
      .from(calls)
      .where(and(eq(calls.sequenceId, sequenceId), isNotNull(calls.followUpMeetingDetails)))
      .limit(1);
    if (call?.meeting) booked.push({ sequenceId, callId: call.id, startTime: new Date(call.meeting.startTime) });
  }
  const past = booked.filter((meeting) => meeting.startTime <= params.now);
  const future = booked.filter((meeting) => meeting.startTime > params.now);
  return {
    pastMeetingEntityId: past[0]?.callId ?? null,
    futureMeetingEntityId: future[0]?.callId ?? null,
    cancellableMeetingEntityId: future[1]?.callId ?? null,
    cancellableMeetingSequenceId: future[1]?.sequenceId ?? null,
    cancellableMeetingEntityId2: future[2]?.callId ?? null,
  };
}
