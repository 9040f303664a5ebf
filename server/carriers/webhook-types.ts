/** One area of a carrier's URL family (`/api/carriers/<carrier>/<area>/<hook>`): its hooks and who serves them. */
export type CarrierWebhookArea = {
  hooks: readonly string[];
  /** The hook's answer; null when the area is not served now (a call area while another voice engine is configured). */
  handle: (request: Request) => Promise<Response> | null;
};
