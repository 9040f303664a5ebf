import "server-only";
import { cache } from "react";
import { getDb } from "@/db";
import { getSessionActor } from "@/server/auth/next-auth";
import { createContext } from "./context";
import { createCaller } from "./root";

/**
 * The tRPC caller of React Server Components (pages and layouts): the same procedures, checks and organization
 * scoping as the console's HTTP calls, acting as the person signed in on the current request. `orgId` is the
 * organization org-scoped procedures act in (as the console's `x-org-id` header). One caller per request and
 * organization (React cache). `server-only`: importing this from a client component fails the build.
 */
export const getServerCaller = cache((orgId?: string) => {
  // Read (and its session version checked) once, however many procedures the page calls.
  let session: ReturnType<typeof getSessionActor> | undefined;
  return createCaller(
    createContext({
      db: getDb(),
      headers: new Headers(orgId ? { "x-org-id": orgId } : {}),
      getSession: () => (session ??= getSessionActor()),
      source: "dashboard",
    }),
  );
});
