import { router } from "@/server/trpc/init";
import { acquireNumberProcedure } from "./acquire-number.procedure";
import { getNumberDaysProcedure } from "./get-number-days.procedure";
import { getNumberProcedure } from "./get-number.procedure";
import { listNumbersProcedure } from "./list-numbers.procedure";
import { releaseNumberProcedure } from "./release-number.procedure";
import { searchAvailableNumbersProcedure } from "./search-available-numbers.procedure";
import { startCallerIdValidationProcedure } from "./start-caller-id-validation.procedure";
import { updateNumberProcedure } from "./update-number.procedure";

/** The organization's phone numbers (docs/numbers.md): static paths before `{numberId}` paths. */
export const numbersRouter = router({
  list: listNumbersProcedure,
  searchAvailable: searchAvailableNumbersProcedure,
  startCallerIdValidation: startCallerIdValidationProcedure,
  acquire: acquireNumberProcedure,
  get: getNumberProcedure,
  days: getNumberDaysProcedure,
  update: updateNumberProcedure,
  release: releaseNumberProcedure,
});
