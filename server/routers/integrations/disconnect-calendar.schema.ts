import { z } from "zod";

export const ZDisconnectCalendarRequestSchema = z.object({}).optional();

export const ZDisconnectCalendarResponseSchema = z.object({
  disconnected: z.boolean(),
  bookingAgents: z.number().int().describe("Agents with a booking mode: their bookings now fail as not connected."),
});
