import { redirect } from "next/navigation";
import { getSessionActor } from "@/server/auth/next-auth";
import { getServerCaller } from "@/server/trpc/server-caller";
import { SignOutButton } from "./_components/sign-out-button";

export const dynamic = "force-dynamic";

/** `/`: signed-out people go to sign-in; signed-in people to the organization they signed into (or their first). */
export default async function HomePage() {
  const actor = await getSessionActor();
  if (!actor) redirect("/sign-in");
  const { organizations } = await getServerCaller().organizations.listMine();
  const target = organizations.find((org) => org.orgId === actor.activeOrgId) ?? organizations[0];
  if (target) redirect(`/${encodeURIComponent(target.orgId)}`);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1>No organization yet</h1>
        <p>
          You are signed in as <strong>{actor.email}</strong>, but you are not a member of any organization. Ask an admin of your
          organization to invite you.
        </p>
        <p>
          API reference: <a href="/docs">/docs</a>
        </p>
        <SignOutButton />
      </div>
    </main>
  );
}
