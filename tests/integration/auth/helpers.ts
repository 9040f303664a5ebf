import bcrypt from "bcryptjs";
import type { Db } from "@/db";
import { memberships, users, type MemberRole } from "@/db/schema";
import { newId } from "@/server/ids";

/** A password account (bcrypt, as the invitation flow creates them), optionally a member of an organization. */
export async function createPasswordUser(db: Db, params: { password: string; organizationId?: string; role?: MemberRole }) {
  const id = newId("user");
  const email = `${id.slice(5)}@password.example`;
  await db.insert(users).values({ id, email, name: "Pat Password", passwordHash: await bcrypt.hash(params.password, 4) });
  if (params.organizationId) await db.insert(memberships).values({ organizationId: params.organizationId, userId: id, role: params.role ?? "member" });
  return { userId: id, email };
}
