import { randomBytes } from "node:crypto";
import { afterAll, beforeAll } from "vitest";
import type { Db } from "@/db";
import { calls, sequences, type BookingConfig, type BookingMode } from "@/db/schema";
import { newId } from "@/server/ids";
import { createAgent } from "@/server/services/agents/create-agent";
import { connectProvider } from "@/server/services/calendar/provider-connection";
import { simulatorBookingConfig } from "@/server/services/calendar/simulator-fixtures";
import { startChiliPiperSimulator, type ChiliPiperSimulator, type StartChiliPiperSimulatorOptions } from "@/server/simulators/chili-piper";
import { createTestOrganization } from "../../factories";

/**
 * A Chili Piper simulator on a loopback port for this test file, and the adapter pointed at it through
 * CHILI_PIPER_BASE_URL (the production setting), so every provider call in the file goes over real HTTP.
 */
export function useChiliPiperSimulator(options: StartChiliPiperSimulatorOptions = {}): { current: ChiliPiperSimulator } {
  const holder = {} as { current: ChiliPiperSimulator };
  process.env.APP_ENCRYPTION_KEY ??= randomBytes(32).toString("base64");
  beforeAll(async () => {
    holder.current = await startChiliPiperSimulator(options);
    process.env.CHILI_PIPER_BASE_URL = holder.current.url;
  });
  afterAll(async () => {
    await holder.current?.stop();
  });
  return holder;
}

/** An organization connected to the simulator with a fresh key (full access unless permissions are given). */
export async function createConnectedOrganization(db: Db, simulator: ChiliPiperSimulator, permissions: string[] | "full-access" = "full-access") {
  const { organization, apiKey } = await createTestOrganization(db);
  const providerKey = simulator.createApiKey(permissions);
  await connectProvider(db, { organizationId: organization.id, apiKey: providerKey });
  return { organization, apiKey, providerKey };
}

export async function createBookingAgent(db: Db, organizationId: string, config: BookingConfig | BookingMode) {
  const bookingConfig = typeof config === "string" ? simulatorBookingConfig(config) : config;
  return createAgent(db, { organizationId, name: `Booking agent (${bookingConfig.mode})`, bookingConfig });
}

/** A sequence and its first call, as the call engine leaves them when a call reached its goal. */
export async function createCallToBook(
  db: Db,
  params: { organizationId: string; agentId: string; email?: string | null; name?: string; customInputVariables?: Record<string, string> },
) {
  const sequenceId = newId("call-sequence");
  await db.insert(sequences).values({
    id: sequenceId,
    organizationId: params.organizationId,
    agentId: params.agentId,
    name: params.name ?? "Jordan Example",
    phoneNumber: "+12015550120",
    toEmailAddress: params.email === undefined ? `guest.${randomBytes(4).toString("hex")}@example.org` : params.email,
    timezone: "America/New_York",
    customInputVariables: params.customInputVariables ?? {},
    scheduledBy: "test",
    steps: [],
  });
  const [call] = await db
    .insert(calls)
    .values({ id: newId("call"), organizationId: params.organizationId, agentId: params.agentId, sequenceId, stepNumber: 1, scheduledAt: new Date(), resultType: "Goal Completed" })
    .returning();
  return call!;
}
