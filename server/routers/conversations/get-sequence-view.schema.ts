import { z } from "zod";
import { ZSequenceIdInputSchema, ZSequenceViewSchema } from "@/server/schemas/sequence";

export const ZGetSequenceViewRequestSchema = z.object({ sequenceId: ZSequenceIdInputSchema });

export const ZGetSequenceViewResponseSchema = ZSequenceViewSchema;
