import { router } from "@/server/trpc/init";
import { listEventsProcedure } from "./list-events.procedure";

export const eventsRouter = router({
  list: listEventsProcedure,
});
