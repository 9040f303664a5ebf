/**
 * - `embedded`: no Inngest settings. Functions run on the in-process embedded runner (inngest/embedded) with state
 *   in the app's Postgres; `inngest.send()` is answered in-process through the client's `fetch`.
 * - `dev`: `INNGEST_DEV` is set (1, or the dev server's URL): the Inngest dev server drives the functions.
 * - `cloud`: `INNGEST_EVENT_KEY` / `INNGEST_SIGNING_KEY` / `INNGEST_BASE_URL` (Inngest Cloud or self-hosted
 *   `inngest start`): requests to the serve route must be signed with the signing key.
 *
 * Dependency-free so the configuration module (server/config/env.ts) can apply it while validating settings.
 */
export type InngestMode = "embedded" | "dev" | "cloud";

export function resolveInngestMode(env: Readonly<Record<string, string | undefined>>): InngestMode {
  const dev = env.INNGEST_DEV?.trim();
  if (dev && dev !== "0" && dev.toLowerCase() !== "false") return "dev";
  if (env.INNGEST_EVENT_KEY?.trim() || env.INNGEST_SIGNING_KEY?.trim() || env.INNGEST_BASE_URL?.trim()) return "cloud";
  return "embedded";
}
