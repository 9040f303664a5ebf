import type { CarrierWebhookArea } from "./webhook-types";
import { carrierByUrlSegment, type CarrierName } from "./registry";
import { telnyxWebhookAreas } from "./telnyx/webhooks";
import { twilioWebhookAreas } from "./twilio-realtime/webhooks";

/**
 * The webhooks of each carrier's URL family, keyed like the registry (./registry.ts): `/api/carriers/<urlSegment>/
 * <area>/<hook>` (app/api/carriers/[carrier]/[...path]/route.ts, docs/carriers.md "URLs"). Heavy imports (the
 * handlers), so only that route imports this file. A carrier its provider calls nothing of has no areas.
 */
const WEBHOOKS: Record<CarrierName, Record<string, CarrierWebhookArea>> = {
  simulator: {},
  "twilio-realtime": twilioWebhookAreas,
};

/**
 * URL families of carriers that carry SMS and numbers but no voice engine yet, keyed by URL segment: Telnyx until its
 * Call Control engine joins the registry (then its entry moves into WEBHOOKS under its carrier name). Kept apart so
 * that `VOICE_ENGINE=telnyx` is not accepted before there is an engine to run.
 */
const LINE_ONLY_WEBHOOKS: Record<string, Record<string, CarrierWebhookArea>> = {
  telnyx: telnyxWebhookAreas,
};

function notFound(message: string): Response {
  return Response.json({ error: "NOT_FOUND", message }, { status: 404, headers: { "cache-control": "no-store" } });
}

/**
 * Serves `POST /api/carriers/<segment>/<area>/<hook>`: the carrier's handler checks the request as on its older path
 * (the signature over the path actually requested). An unknown carrier, area or hook, or an area not served with the
 * configured voice engine → 404 `{error, message}`.
 */
export async function serveCarrierWebhook(request: Request, params: { carrier: string; path: string[] }): Promise<Response> {
  const found = carrierByUrlSegment(params.carrier);
  const areas = found ? WEBHOOKS[found.name] : Object.hasOwn(LINE_ONLY_WEBHOOKS, params.carrier) ? LINE_ONLY_WEBHOOKS[params.carrier]! : null;
  if (!areas) return notFound(`No carrier is served at /api/carriers/${params.carrier}.`);
  const [areaName, hook, ...rest] = params.path;
  const area = areaName !== undefined && Object.hasOwn(areas, areaName) ? areas[areaName] : undefined;
  if (!area || hook === undefined || rest.length > 0 || !area.hooks.includes(hook)) {
    return notFound(`/api/carriers/${params.carrier}/${params.path.join("/")} is not a webhook of this carrier.`);
  }
  const response = area.handle(request);
  return response ?? notFound(`/api/carriers/${params.carrier}/${areaName}/… is not served with the configured voice engine.`);
}
