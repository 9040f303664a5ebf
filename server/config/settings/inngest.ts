import { settingsOf } from "./setting";
import { httpUrl, text, wholeNumber } from "./value-types";

/**
 * Background jobs: Inngest Cloud, a self-hosted Inngest or its dev server (inngest/mode.ts), else the embedded runner
 * and its worker pool (inngest/embedded, docs/background-jobs.md).
 */
const setting = settingsOf("Background jobs (Inngest)");

export const inngestSettings = {
  INNGEST_DEV: setting(text().optional(), {
    description: "`1` (or the dev server's URL): functions run on the Inngest dev server.",
    default: "unset",
    sameOnEveryInstance: true,
  }),
  INNGEST_EVENT_KEY: setting(text().optional(), {
    description: "Inngest Cloud / self-hosted `inngest start`: the key events are sent with. Any Inngest key switches from the embedded runner to Inngest.",
    default: "unset: the embedded runner (state in PostgreSQL)",
    secret: true,
    sameOnEveryInstance: true,
  }),
  INNGEST_SIGNING_KEY: setting(text().optional(), {
    description: "Verifies Inngest's requests to `/api/inngest` and signs the app's sync.",
    secret: true,
    sameOnEveryInstance: true,
  }),
  INNGEST_SIGNING_KEY_FALLBACK: setting(text().optional(), {
    description: "The previous signing key while rotating (read by the Inngest SDK).",
    secret: true,
    sameOnEveryInstance: true,
  }),
  INNGEST_BASE_URL: setting(httpUrl().optional(), {
    description: "A self-hosted Inngest server (`inngest start`), e.g. `http://inngest:8288`.",
    default: "Inngest Cloud",
    sameOnEveryInstance: true,
  }),

  INNGEST_EMBEDDED_WORKERS: setting(wholeNumber(1, 256).default(12), {
    description: "Embedded runner: requests (function steps) it executes at once in this instance.",
    default: "`12`",
  }),
  INNGEST_EMBEDDED_FUNCTION_SHARE: setting(wholeNumber(1, 256).default(8), {
    description:
      "Embedded runner: most of those workers one function may hold, so a burst of one function (a campaign's analysis batches) leaves the others (the dispatcher, webhook deliveries, a meeting's reconciliation) room to run. At least `INNGEST_EMBEDDED_WORKERS` turns the share off.",
    default: "`8`",
  }),
};
