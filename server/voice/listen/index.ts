import { getDbHandle } from "@/db";
import { getLogger } from "@/server/observability/logger";
import { ListenHub } from "./listen-hub";
import { processSingleton } from "@/server/runtime/process-singleton";

const registry = () => processSingleton("listenHub", () => ({ hub: undefined as ListenHub | undefined }));

/**
 * The process's listen hub, on the app's Postgres for LISTEN/NOTIFY. Process-wide like the voice engine (server/runtime/process-singleton.ts): the media
 * bridge and the listen socket must meet in one hub whichever module copy loaded them.
 */
export function getListenHub(): ListenHub {
  const current = registry();
  current.hub ??= new ListenHub({ sql: getDbHandle().sql, log: (message, error) => getLogger("listen").warn({ err: error }, message) });
  return current.hub;
}

export function setListenHub(hub: ListenHub | undefined): void {
  registry().hub = hub;
}
