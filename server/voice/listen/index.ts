import { getDbHandle } from "@/db";
import { getLogger } from "@/server/observability/logger";
import { ListenHub } from "./listen-hub";

const registry = globalThis as unknown as { __listenHub?: ListenHub };

/**
 * The process's listen hub, on the app's Postgres for LISTEN/NOTIFY. On globalThis like the voice engine: the media
 * bridge and the listen socket must meet in one hub whichever module copy loaded them.
 */
export function getListenHub(): ListenHub {
  registry.__listenHub ??= new ListenHub({ sql: getDbHandle().sql, log: (message, error) => getLogger("listen").warn({ err: error }, message) });
  return registry.__listenHub;
}

export function setListenHub(hub: ListenHub | undefined): void {
  registry.__listenHub = hub;
}
