import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { getDb } from "@/db";
import { getSessionActor } from "@/server/auth/next-auth";
import { findCallOrganizationForMember } from "@/server/services/calls/find-call-organization";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Call" };

type Props = { params: Promise<{ callId: string }> };

/**
 * `callUrl` of the call metadata and webhook payloads: `${baseUrl}/calls/{callId}`. The link names no organization,
 * so it opens the call in the organization it belongs to, for members of that organization only.
 */
export default async function CallLinkPage({ params }: Props) {
  const callId = decodeURIComponent((await params).callId);
  const actor = await getSessionActor();
  if (!actor) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/calls/${encodeURIComponent(callId)}`)}`);
  const found = await findCallOrganizationForMember(getDb(), { callId, userId: actor.userId });
  if (found) redirect(`/${encodeURIComponent(found.orgId)}/calls/${encodeURIComponent(callId)}`);
  return (
    <main className="auth-page">
      <div className="auth-card">
        <h1>Call not found</h1>
        <p>
          There is no call <code>{callId}</code> in any organization you ({actor.email}) are a member of.
        </p>
        <Link href="/">Back to the console</Link>
      </div>
    </main>
  );
}
