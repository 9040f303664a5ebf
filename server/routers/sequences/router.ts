import { router } from "@/server/trpc/init";
import { cancelSequencesProcedure } from "./cancel-sequences.procedure";

export const sequencesRouter = router({
  cancel: cancelSequencesProcedure,
});
