import { randomBytes } from "node:crypto";
import bcrypt from "bcryptjs";
import { eq, sql } from "drizzle-orm";
import type { DbOrTx } from "@/db";
import { memberships, users } from "@/db/schema";
import { AppError } from "@/server/errors";
import { newId } from "@/server/ids";
import type { MemberRole } from "@/server/trpc/context";

export type AddMemberParams = {
  organizationId: string;
  email: string;
  role: MemberRole;
  name?: string;
  /** When password sign-in is on, a person without an account gets a one-time initial password (returned once). */
  issueInitialPassword: boolean;
};

export async function addMember(db: DbOrTx, params: AddMemberParams) {
  const email = params.email.trim().toLowerCase();
  return db.transaction(async (tx) => {
    let initialPassword: string | null = null;
    const existing = await tx.select().from(users).where(eq(sql`lower(${users.email})`, email)).limit(1);
    let userId = existing[0]?.id;
    if (!userId) {
      userId = newId("user");
      let passwordHash: string | null = null;
      if (params.issueInitialPassword) {
        initialPassword = randomBytes(12).toString("base64url");
        passwordHash = await bcrypt.hash(initialPassword, 10);
      }
      await tx.insert(users).values({ id: userId, email, name: params.name?.trim() || "", passwordHash });
    }
    const inserted = await tx
      .insert(memberships)
      .values({ organizationId: params.organizationId, userId, role: params.role })
      .onConflictDoNothing()
      .returning({ userId: memberships.userId });
    // CONFLICT: the person is already a member (change their role instead).
    if (!inserted[0]) throw new AppError("CONFLICT", `${email} is already a member of this organization.`);
    return { userId, email, role: params.role, initialPassword };
  });
}
