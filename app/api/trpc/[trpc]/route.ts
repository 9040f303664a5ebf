import { fetchRequestHandler } from "@trpc/server/adapters/fetch";
import { getDb } from "@/db";
import { readSessionActor, sessionSourceOf } from "@/server/auth/next-auth";
import { createContext } from "@/server/trpc/context";
import { appRouter } from "@/server/trpc/root";

export const dynamic = "force-dynamic";
export const runtime = "nodejs";

/** Mutations from another origin are refused (the session cookie is SameSite=Lax; this closes the rest). */
function isCrossOrigin(req: Request): boolean {
  const origin = req.headers.get("origin");
  if (!origin) return false;
  const host = req.headers.get("x-forwarded-host") ?? req.headers.get("host");
  try {
    return new URL(origin).host !== host;
  } catch {
    return true;
  }
}

function handler(req: Request) {
  if (req.method === "POST" && isCrossOrigin(req)) {
    return Response.json({ error: "FORBIDDEN", message: "Cross-origin request refused." }, { status: 403 });
  }
  return fetchRequestHandler({
    endpoint: "/api/trpc",
    req,
    router: appRouter,
    createContext: () => {
      // Read (and its session version checked) once per HTTP request, however many procedures the batch holds.
      let session: ReturnType<typeof readSessionActor> | undefined;
      const getSession = () => (session ??= readSessionActor(sessionSourceOf(req)));
      return createContext({ db: getDb(), headers: req.headers, getSession, source: "dashboard" });
    },
  });
}

export { handler as GET, handler as POST };
