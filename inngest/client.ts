import { Inngest } from "inngest";
import { EMBEDDED_BASE_URL, embeddedFetch } from "./embedded/transport";

export const INNGEST_APP_ID = "outbound-calling";

/**
 * - `embedded`: no Inngest settings. Functions run on the in-process embedded runner (inngest/embedded) with state
 *   in the app's Postgres; `inngest.send()` is answered in-process through the client's `fetch`.
 * - `dev`: `INNGEST_DEV` is set (1, or the dev server's URL): the Inngest dev server drives the functions.
 * - `cloud`: `INNGEST_EVENT_KEY` / `INNGEST_SIGNING_KEY` / `INNGEST_BASE_URL` (Inngest Cloud or self-hosted
 *   `inngest start`): requests to the serve route must be signed with the signing key.
 */
export type InngestMode = "embedded" | "dev" | "cloud";

export function resolveInngestMode(env: Record<string, string | undefined> = process.env): InngestMode {
  const dev = env.INNGEST_DEV?.trim();
  if (dev && dev !== "0" && dev.toLowerCase() !== "false") return "dev";
  if (env.INNGEST_EVENT_KEY || env.INNGEST_SIGNING_KEY || env.INNGEST_BASE_URL) return "cloud";
  return "embedded";
}

export function createInngestClient(mode: InngestMode): Inngest {
  switch (mode) {
    case "embedded":
      return new Inngest({ id: INNGEST_APP_ID, isDev: true, baseUrl: EMBEDDED_BASE_URL, fetch: embeddedFetch as typeof fetch });
    case "dev":
      return new Inngest({ id: INNGEST_APP_ID, isDev: true });
    case "cloud":
      return new Inngest({ id: INNGEST_APP_ID, isDev: false });
  }
}

export const inngestMode: InngestMode = resolveInngestMode();

export const inngest = createInngestClient(inngestMode);
