/** Where the signed-URL route of locally stored recordings lives; the key follows, one encoded segment per key segment. */
export const LOCAL_RECORDING_ROUTE = "/api/recordings/";

/**
 * The console's form of a recording link. The API's `url` is absolute (integrators fetch it from anywhere), built on
 * the configured public base URL; a browser on another host name of the same server (127.0.0.1, a proxy alias) would
 * fetch it cross-origin and be refused by CORS. A link to the local store becomes relative — path and signed query
 * only, served by whichever host is being browsed; links to other stores (S3 presigned URLs) stay as they are.
 */
export function sameOriginRecordingUrl(url: string): string {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return url;
  }
  return parsed.pathname.startsWith(LOCAL_RECORDING_ROUTE) ? `${parsed.pathname}${parsed.search}` : url;
}
