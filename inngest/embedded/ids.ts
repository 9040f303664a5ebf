import { newUlid } from "@/server/ids";

/** A ULID for runs, events and batches: the app's pooled-randomness ULID (server/ids.ts). */
export const newId: () => string = newUlid;
