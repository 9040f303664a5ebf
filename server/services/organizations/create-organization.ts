import { randomBytes } from "node:crypto";
import type { DbOrTx } from "@/db";
import { organizations } from "@/db/schema";
import { newId } from "@/server/ids";

export type CreateOrganizationParams = {
  name: string;
  /** Identity-provider organization ID; generated in the `org_…` form when not given. */
  orgId?: string;
  monthlyCreditAllocation?: number;
  titleCaseAllowlisted?: boolean;
};

export function generateExternalOrgId(): string {
  return `org_${randomBytes(12).toString("base64url")}`;
}

export async function createOrganization(db: DbOrTx, params: CreateOrganizationParams) {
  const [organization] = await db
    .insert(organizations)
    .values({
      id: newId("org"),
      orgId: params.orgId ?? generateExternalOrgId(),
      name: params.name,
      monthlyCreditAllocation: params.monthlyCreditAllocation ?? 0,
      titleCaseAllowlisted: params.titleCaseAllowlisted ?? false,
    })
    .returning();
  return organization!;
}
