import { z } from "zod";
import { ZMeetingEntityIdSchema, ZMeetingStateSchema } from "@/server/schemas/meeting";

export const ZGetMeetingStateRequestSchema = z.object({ entityId: ZMeetingEntityIdSchema });

export const ZGetMeetingStateResponseSchema = ZMeetingStateSchema;
