import { router } from "@/server/trpc/init";
import { enrollManyProcedure } from "./enroll-many.procedure";
import { enrollOneProcedure } from "./enroll-one.procedure";
import { previewEnrollmentProcedure } from "./preview-enrollment.procedure";

export const enrollmentRouter = router({
  enrollOne: enrollOneProcedure,
  enrollMany: enrollManyProcedure,
  previewMany: previewEnrollmentProcedure,
});
