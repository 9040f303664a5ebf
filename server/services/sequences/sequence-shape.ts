import type { Sequence } from "@/db/queries/sequences";
import type { TSequence } from "@/server/schemas/sequence";

/**
 * The API's Sequence object (ZSequenceSchema) of a stored sequence: the one mapping from a sequences row, used by
 * enrollment's answer and the console's sequence page. `firstCallScheduledAt` is when its first call is (or was)
 * due, after call windows; null while a chained contact waits for its turn.
 */
export function toApiSequence(sequence: Sequence, firstCallScheduledAt: Date | null): TSequence {
  return {
    sequenceId: sequence.id,
    agentId: sequence.agentId,
    name: sequence.name,
    phoneNumber: sequence.phoneNumber,
    phoneNumberExt: sequence.phoneNumberExt,
    scheduledAt: firstCallScheduledAt ? firstCallScheduledAt.toISOString() : null,
    toEmailAddress: sequence.toEmailAddress ?? "",
    customInputVariables: sequence.customInputVariables,
    timezone: sequence.timezone,
    scheduledBy: sequence.scheduledBy,
    steps: sequence.steps,
    lifecycleStatus: sequence.lifecycleStatus,
    chainStatus: sequence.chainStatus,
    createdAt: sequence.createdAt.toISOString(),
    consent: sequence.consent ?? null,
  };
}
