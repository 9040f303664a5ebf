/** Where sign-in leads when no acceptable place was asked for. */
export const DEFAULT_AFTER_SIGN_IN = "/";

const PROBE_ORIGIN = "http://console.invalid";

/**
 * The place to go after sign-in (`?callbackUrl=`), accepted only as a path on this origin, else DEFAULT_AFTER_SIGN_IN.
 * The value is parsed as a browser parses a link: `/\evil.example` or `/\t/evil.example` (browsers read `\` as `/`
 * and drop tabs and line breaks inside URLs) must not turn into another host; percent-encoded forms (`/%5C…`, `/%2F…`)
 * stay encoded in the path, where a browser never reads them as a host. Refused outright: anything but a string
 * starting with one `/`, backslashes, and control or invisible line-breaking characters (C0, DEL, C1, U+2028/U+2029),
 * which also never reach a `Location` header. What is returned is the parser's own serialization (path, query,
 * fragment; non-ASCII percent-encoded), checked again not to start with `//` or `/\`.
 */
export function safeCallbackPath(value: string | string[] | null | undefined): string {
  if (typeof value !== "string" || !value.startsWith("/") || value.startsWith("//")) return DEFAULT_AFTER_SIGN_IN;
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses.
  if (value.length > 2048 || /[\\\u0000-\u001f\u007f-\u009f\u2028\u2029]/.test(value)) return DEFAULT_AFTER_SIGN_IN;
  let url: URL;
  try {
    url = new URL(value, PROBE_ORIGIN);
  } catch {
    return DEFAULT_AFTER_SIGN_IN;
  }
  if (url.origin !== PROBE_ORIGIN) return DEFAULT_AFTER_SIGN_IN;
  const path = `${url.pathname}${url.search}${url.hash}`;
  if (!path.startsWith("/") || path.startsWith("//") || path.startsWith("/\\")) return DEFAULT_AFTER_SIGN_IN;
  // Pages never come back to sign-in itself (a loop), nor to the API.
  if (url.pathname === "/sign-in" || url.pathname.startsWith("/api/")) return DEFAULT_AFTER_SIGN_IN;
  return path;
}
