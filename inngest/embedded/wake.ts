import type postgres from "postgres";
import type { Db } from "@/db";
import type { Logger } from "./context";
import { WAKE_CHANNEL } from "./state";

/**
 * LISTEN for new work of a partition: intake notifies WAKE_CHANNEL (at commit) when it creates runs or resumes
 * waiters, so a runner wakes at once for events sent by another process (`npm run seed`, a second instance)
 * instead of at its next poll. Returns the function that stops listening, or null when the connection cannot
 * LISTEN (the runner then polls more often).
 */
export async function listenForWork(db: Db, partition: string, onWork: () => void, logger: Logger): Promise<(() => Promise<void>) | null> {
  const client = (db as unknown as { $client?: postgres.Sql }).$client;
  if (typeof client?.listen !== "function") return null;
  try {
    const { unlisten } = await client.listen(WAKE_CHANNEL, (payload) => {
      if (payload === partition) onWork();
    });
    return unlisten;
  } catch (error) {
    logger.warn("[inngest-embedded] LISTEN failed; polling instead", error);
    return null;
  }
}
