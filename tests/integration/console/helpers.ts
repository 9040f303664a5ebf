import { memberships, users, type MemberRole } from "@/db/schema";
import type { Db } from "@/db";
import { newId } from "@/server/ids";
import { createContext } from "@/server/trpc/context";
import { createCaller } from "@/server/trpc/root";

/** A tRPC caller acting as a signed-in console user with `role` in the organization (the dashboard's path). */
export async function consoleCaller(db: Db, organizationId: string, role: MemberRole, now?: () => Date) {
  return (await consoleUser(db, organizationId, role, now)).caller;
}

/** A console user with `role` in the organization, and their tRPC caller. */
export async function consoleUser(db: Db, organizationId: string, role: MemberRole, now?: () => Date) {
  const userId = newId("user");
  const email = `${userId}@example.test`;
  await db.insert(users).values({ id: userId, email, name: role });
  await db.insert(memberships).values({ organizationId, userId, role });
  const caller = createCaller(createContext({ db, source: "dashboard", now, getSession: async () => ({ userId, email, activeOrgId: null }) }));
  return { userId, caller };
}

/** A tRPC caller authenticated by an API key (the REST path), for checking that console procedures refuse keys. */
export function apiKeyCaller(db: Db, apiKey: string) {
  return createCaller(createContext({ db, source: "rest", headers: new Headers({ "x-api-key": apiKey }) }));
}
