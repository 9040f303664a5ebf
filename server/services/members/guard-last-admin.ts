import { and, eq } from "drizzle-orm";
import type { Tx } from "@/db";
import { memberships } from "@/db/schema";
import { AppError } from "@/server/errors";

/**
 * Invariant: an organization always keeps at least one admin. Locks the organization's admin memberships
 * (FOR UPDATE) so two concurrent demotions/removals cannot both pass the check; call inside the write's transaction.
 */
export async function assertNotLastAdmin(tx: Tx, params: { organizationId: string; userId: string }): Promise<void> {
  const admins = await tx
    .select({ userId: memberships.userId })
    .from(memberships)
    .where(and(eq(memberships.organizationId, params.organizationId), eq(memberships.role, "admin")))
    .for("update");
  if (admins.length === 1 && admins[0]!.userId === params.userId) {
    // CONFLICT: the change would leave the organization without an admin.
    throw new AppError("CONFLICT", "This is the organization's last admin: make someone else an admin first.");
  }
}
