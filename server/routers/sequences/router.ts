import { router } from "@/server/trpc/init";
import { cancelSequencesProcedure } from "./cancel-sequences.procedure";
import { countSequencesByReferenceProcedure } from "./count-sequences-by-reference.procedure";
import { simulateCallbackProcedure } from "./simulate-callback.procedure";

/** cancel is `POST /sequences/cancel`; countByReference is the console's preview of it, simulateCallback the embedded callback (dashboard only). */
export const sequencesRouter = router({
  cancel: cancelSequencesProcedure,
  countByReference: countSequencesByReferenceProcedure,
  simulateCallback: simulateCallbackProcedure,
});
