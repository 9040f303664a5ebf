import NextAuth from "next-auth";
import { vi } from "vitest";
import { GET as trpcGet, POST as trpcPost } from "@/app/api/trpc/[trpc]/route";
import { authOptions } from "@/server/auth/next-auth";

/**
 * Drives the app's real next-auth configuration (credentials provider, jwt/session callbacks, sign-out event) through
 * next-auth's own request handler, and the real `/api/trpc` route handler with the resulting session cookie: sign-in,
 * sign-out and session checks as a browser's requests go.
 */
export const APP_URL = "http://localhost:3000";

export function useNextAuthEnv() {
  vi.stubEnv("NEXTAUTH_URL", APP_URL);
  vi.stubEnv("NEXTAUTH_SECRET", "test-secret-0123456789abcdef0123456789abcdef");
  vi.stubEnv("AUTH_CREDENTIALS", "on");
}

type Cookies = Record<string, string>;
type AuthResponse = { status: number; cookies: Cookies; body: unknown };

/** One request to next-auth's API handler (`/api/auth/<action>/<provider>`), with a minimal Node-style response. */
async function handle(params: { action: string[]; method: "GET" | "POST"; cookies?: Cookies; headers?: Record<string, string>; body?: Record<string, string> }): Promise<AuthResponse> {
  const headers = new Map<string, string[]>();
  const result: AuthResponse = { status: 200, cookies: {}, body: null };
  const res = {
    getHeader: (name: string) => headers.get(name.toLowerCase()),
    setHeader: (name: string, value: string | string[]) => headers.set(name.toLowerCase(), Array.isArray(value) ? value : [value]),
    status(code: number) {
      result.status = code;
      return res;
    },
    json(body: unknown) {
      result.body = body;
      return res;
    },
    send(body: unknown) {
      result.body = body;
      return res;
    },
    end() {
      return res;
    },
  };
  const req = {
    query: { nextauth: params.action },
    method: params.method,
    cookies: params.cookies ?? {},
    headers: { host: "localhost:3000", ...params.headers },
    body: params.body ?? {},
  };
  await NextAuth(req as never, res as never, authOptions());
  for (const header of headers.get("set-cookie") ?? []) {
    const [pair] = header.split(";");
    const index = pair!.indexOf("=");
    result.cookies[pair!.slice(0, index)] = decodeURIComponent(pair!.slice(index + 1));
  }
  return result;
}

async function csrf(): Promise<{ token: string; cookies: Cookies }> {
  const res = await handle({ action: ["csrf"], method: "GET" });
  return { token: (res.body as { csrfToken: string }).csrfToken, cookies: res.cookies };
}

export type SignInAttempt = { sessionCookie: string | null; error: string | null };

/** POST /api/auth/callback/credentials as the sign-in form does (`redirect: false`), from the client address `ip`. */
export async function signInWithCredentials(params: { email: string; password: string; ip?: string }): Promise<SignInAttempt> {
  const { token, cookies } = await csrf();
  const res = await handle({
    action: ["callback", "credentials"],
    method: "POST",
    cookies,
    headers: { "x-forwarded-for": params.ip ?? "203.0.113.10", "content-type": "application/x-www-form-urlencoded" },
    body: { csrfToken: token, email: params.email, password: params.password, json: "true", callbackUrl: APP_URL },
  });
  const session = Object.entries(res.cookies).find(([name, value]) => name.endsWith("next-auth.session-token") && value);
  const url = (res.body as { url?: string } | null)?.url;
  const error = url ? new URL(url, APP_URL).searchParams.get("error") : null;
  return { sessionCookie: session ? `${session[0]}=${session[1]}` : null, error };
}

function parseCookie(cookie: string): Cookies {
  const index = cookie.indexOf("=");
  return { [cookie.slice(0, index)]: cookie.slice(index + 1) };
}

/** POST /api/auth/signout with the session cookie (the sign-out button). */
export async function signOut(sessionCookie: string): Promise<void> {
  const { token, cookies } = await csrf();
  await handle({ action: ["signout"], method: "POST", cookies: { ...cookies, ...parseCookie(sessionCookie) }, body: { csrfToken: token, json: "true" } });
}

/** A tRPC call through the real `/api/trpc` route handler with a session cookie: its HTTP status and JSON body. */
export async function trpcWithCookie(
  path: string,
  sessionCookie: string | null,
  options: { orgId?: string; input?: unknown; method?: "GET" | "POST"; headers?: Record<string, string> } = {},
) {
  const headers = new Headers({ "content-type": "application/json", ...options.headers });
  if (sessionCookie) headers.set("cookie", sessionCookie);
  if (options.orgId) headers.set("x-org-id", options.orgId);
  const method = options.method ?? "GET";
  const query = method === "GET" && options.input !== undefined ? `?input=${encodeURIComponent(JSON.stringify(options.input))}` : "";
  const request = new Request(`${APP_URL}/api/trpc/${path}${query}`, {
    method,
    headers,
    body: method === "POST" ? JSON.stringify(options.input ?? null) : undefined,
  });
  const response = await (method === "GET" ? trpcGet(request) : trpcPost(request));
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as { result?: { data: unknown }; error?: { message?: string; data?: { appCode?: string; message?: string } } },
  };
}
