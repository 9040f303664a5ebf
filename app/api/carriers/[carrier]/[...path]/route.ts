import { serveCarrierWebhook } from "@/server/carriers/webhooks";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/**
 * Each carrier's URL family, `/api/carriers/<carrier>/<area>/<hook>` (docs/carriers.md "URLs"): the carrier found in
 * the registry by its URL segment, the hook served by its own handler (server/carriers/webhooks.ts). Unknown → 404.
 */
export async function POST(request: Request, context: { params: Promise<{ carrier: string; path: string[] }> }): Promise<Response> {
  return serveCarrierWebhook(request, await context.params);
}
