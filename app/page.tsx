import { redirect } from "next/navigation";
import { getSessionActor } from "@/server/auth/next-auth";
import { getServerCaller } from "@/server/trpc/server-caller";
import { SignOutButton } from "./_components/sign-out-button";
import { AuthCard } from "./_components/ui/auth-card";

export const dynamic = "force-dynamic";

/** `/`: signed-out people go to sign-in; signed-in people to the organization they signed into (or their first). */
export default async function HomePage() {
  const actor = await getSessionActor();
  if (!actor) redirect("/sign-in");
  const { organizations } = await getServerCaller().organizations.listMine();
  const target = organizations.find((org) => org.orgId === actor.activeOrgId) ?? organizations[0];
  if (target) redirect(`/${encodeURIComponent(target.orgId)}`);
  return (
    <AuthCard>
      <h1>No organization yet</h1>
      <p>
        You are signed in as <strong>{actor.email}</strong>, but you are not a member of any organization. Ask an admin of your
        organization to invite you.
      </p>
      <p>
        Integrating? See the <a href="/docs">API reference</a>.
      </p>
      <SignOutButton />
    </AuthCard>
  );
}
