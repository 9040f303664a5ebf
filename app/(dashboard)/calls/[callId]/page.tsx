import type { Metadata } from "next";
import Link from "next/link";
import { redirect } from "next/navigation";
import { getSessionActor } from "@/server/auth/next-auth";
import { AuthCard } from "../../../_components/ui/auth-card";
import { ZFindCallOrganizationRequestSchema } from "@/server/routers/conversations/find-call-organization.schema";
import { getServerCaller } from "@/server/trpc/server-caller";
import { pageParam } from "../../../_components/page-param";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Call" };

type Props = { params: Promise<{ callId: string }> };

/**
 * `callUrl` of the call metadata and webhook payloads: `${baseUrl}/calls/{callId}`. The link names no organization,
 * so it opens the call in the organization it belongs to, for members of that organization only.
 */
export default async function CallLinkPage({ params }: Props) {
  const callId = await pageParam(params, "callId");
  const actor = await getSessionActor();
  if (!actor) redirect(`/sign-in?callbackUrl=${encodeURIComponent(`/calls/${encodeURIComponent(callId)}`)}`);
  const input = ZFindCallOrganizationRequestSchema.safeParse({ callId });
  const found = input.success ? await getServerCaller().conversations.callOrganization(input.data) : null;
  if (found) redirect(`/${encodeURIComponent(found.orgId)}/calls/${encodeURIComponent(callId)}`);
  return (
    <AuthCard>
      <h1>Call not found</h1>
      <p>
        There is no such call in any organization you ({actor.email}) are a member of. Check the link, or ask who sent it which
        organization it belongs to.
      </p>
      <Link href="/">Back to the console</Link>
    </AuthCard>
  );
}
