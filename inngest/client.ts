import { Inngest } from "inngest";
import { INNGEST_APP_ID } from "./app-id";
import { getConfig } from "@/server/config/env";
import { getLogger } from "@/server/observability/logger";
import { EMBEDDED_BASE_URL, embeddedFetch } from "./embedded/transport";
import { resolveInngestMode as resolveModeOf, type InngestMode } from "./mode";

export { INNGEST_APP_ID };

export type { InngestMode } from "./mode";

/** The mode of these settings (default: this process's configuration). See inngest/mode.ts. */
export function resolveInngestMode(env: Readonly<Record<string, string | undefined>> = getConfig().raw): InngestMode {
  return resolveModeOf(env);
}

/** The SDK's messages and the functions' `logger` go to the app's structured logs. */
export function createInngestClient(mode: InngestMode): Inngest {
  const logger = getLogger("inngest");
  switch (mode) {
    case "embedded":
      return new Inngest({ id: INNGEST_APP_ID, isDev: true, baseUrl: EMBEDDED_BASE_URL, fetch: embeddedFetch as typeof fetch, logger });
    case "dev":
      return new Inngest({ id: INNGEST_APP_ID, isDev: true, logger });
    case "cloud":
      return new Inngest({ id: INNGEST_APP_ID, isDev: false, logger });
  }
}

export const inngestMode: InngestMode = resolveInngestMode();

export const inngest = createInngestClient(inngestMode);
