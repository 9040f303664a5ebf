import NextAuth from "next-auth";
import { authOptions } from "@/server/auth/next-auth";
import { clientIp } from "@/server/http/client-ip";
import { consumeConsoleRateLimit } from "@/server/http/console-rate-limit";
import { nextRefusalResponse } from "@/server/http/next-edge";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

type RouteContext = { params: Promise<{ nextauth: string[] }> };

/**
 * NextAuth's routes (sign-in, callbacks, session, sign-out), limited per client address like requests without
 * credentials everywhere (server/http/console-rate-limit.ts); the per-account and per-address password lockouts come on
 * top (server/auth/sign-in-throttle.ts). Bodies were limited by the production server before this runs.
 */
async function handler(req: Request, context: RouteContext) {
  const limit = await consumeConsoleRateLimit({ address: clientIp(req.headers) });
  if (!limit.allowed) {
    const answer = nextRefusalResponse("auth", { code: "RATE_LIMITED", message: limit.message, headers: limit.headers });
    return new Response(answer.body, { status: answer.status, headers: answer.headers });
  }
  return NextAuth(req as never, context as never, authOptions());
}

export { handler as GET, handler as POST };
