import { router } from "@/server/trpc/init";
import { enrollOneProcedure } from "./enroll-one.procedure";

export const enrollmentRouter = router({
  enrollOne: enrollOneProcedure,
});
