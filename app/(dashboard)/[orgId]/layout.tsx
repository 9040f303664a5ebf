import Link from "next/link";
import { redirect } from "next/navigation";
import type { ReactNode } from "react";
import { getConsoleMembership } from "@/server/auth/next-auth";
import { isOperatorEmail } from "@/server/config/settings";
import { TRPCReactProvider } from "@/server/trpc/client/react";
import { getServerCaller } from "@/server/trpc/server-caller";
import { CustomerSearch } from "../../_components/customers/customer-search";
import { DashboardShell } from "../../_components/dashboard-shell";
import { OrgProvider, type ConsoleOrg } from "../../_components/org-context";
import { SignOutButton } from "../../_components/sign-out-button";
import { AuthCard } from "../../_components/ui/auth-card";
import { pageParam } from "../../_components/page-param";

export const dynamic = "force-dynamic";

type Props = { children: ReactNode; params: Promise<{ orgId: string }> };

export default async function DashboardLayout({ children, params }: Props) {
  const orgId = await pageParam(params, "orgId");
  const { actor, membership } = await getConsoleMembership(orgId);
  if (!actor) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/${orgId}`)}`);
  const { organizations } = await getServerCaller(orgId).organizations.listMine();
  if (!membership) {
    return (
      <AuthCard>
        <h1>Not a member</h1>
        <p>You ({actor.email}) are not a member of this organization.</p>
        {organizations.length > 0 && (
          <ul className="list-disc pl-5">
            {organizations.map((org) => (
              <li key={org.orgId}>
                <Link href={`/${encodeURIComponent(org.orgId)}`}>{org.name}</Link>
              </li>
            ))}
          </ul>
        )}
        <SignOutButton />
      </AuthCard>
    );
  }
  const value: ConsoleOrg = {
    orgId: membership.orgId,
    name: membership.name,
    role: membership.role,
    email: membership.email,
    organizations,
    operator: isOperatorEmail(membership.email),
  };
  return (
    <TRPCReactProvider key={orgId} orgId={orgId}>
      <OrgProvider value={value}>
        <DashboardShell search={<CustomerSearch />}>{children}</DashboardShell>
      </OrgProvider>
    </TRPCReactProvider>
  );
}
