import { appBaseUrl } from "@/server/config/settings";
import { getLogger } from "@/server/observability/logger";
import { isShuttingDown, setInngestRegistered } from "./lifecycle";

/**
 * Inngest Cloud / self-hosted `inngest start` (and the dev server): the instance syncs the app with Inngest when it
 * starts — a PUT on its own serve handler, which makes the SDK register the functions and the public serve URL
 * (`$APP_BASE_URL/api/inngest`) with Inngest, signed with `INNGEST_SIGNING_KEY`. Until that succeeds, `/readyz`
 * reports `background: not registered with Inngest`; failures are retried with backoff (up to a minute apart).
 * Every instance does this; Inngest treats an unchanged sync as a no-op.
 */
const RETRY_DELAYS_MS = [1_000, 2_000, 5_000, 10_000, 30_000, 60_000];

export type RegisterOptions = {
  handler: (request: Request) => Promise<Response>;
  /** Default `$APP_BASE_URL/api/inngest`. */
  serveUrl?: string;
  /** Test hook: the delays between attempts. */
  retryDelaysMs?: number[];
};

async function registerOnce(options: RegisterOptions): Promise<{ ok: boolean; status: number; message: string }> {
  const url = options.serveUrl ?? `${appBaseUrl().replace(/\/+$/, "")}/api/inngest`;
  const response = await options.handler(new Request(url, { method: "PUT" }));
  const body = (await response.json().catch(() => ({}))) as { message?: string };
  return { ok: response.status === 200, status: response.status, message: body.message ?? "" };
}

/** Registers now, then keeps retrying in the background until it succeeds (or the process shuts down). */
export async function registerWithInngest(options: RegisterOptions): Promise<boolean> {
  const log = getLogger("inngest");
  const delays = options.retryDelaysMs ?? RETRY_DELAYS_MS;
  for (let attempt = 0; !isShuttingDown(); attempt++) {
    try {
      const result = await registerOnce(options);
      if (result.ok) {
        setInngestRegistered(true);
        log.info("app synced with Inngest");
        return true;
      }
      log.warn({ status: result.status, message: result.message.slice(0, 300), attempt: attempt + 1 }, "syncing with Inngest failed; retrying");
    } catch (error) {
      log.warn({ err: error, attempt: attempt + 1 }, "syncing with Inngest failed; retrying");
    }
    const delay = delays[Math.min(attempt, delays.length - 1)]!;
    await new Promise((resolve) => setTimeout(resolve, delay).unref());
  }
  return false;
}
