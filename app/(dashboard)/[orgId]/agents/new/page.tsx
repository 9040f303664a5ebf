import type { Metadata } from "next";
import { getConsoleMembership } from "@/server/auth/next-auth";
import { PageHeader } from "../../../../_components/ui/page-header";
import { Forbidden } from "../../../../_components/ui/states";
import { AgentEditor } from "../_components/agent-editor";
import { EMPTY_AGENT } from "../_components/agent-draft";
import { pageParam } from "../../../../_components/page-param";

export const metadata: Metadata = { title: "New agent" };

type Props = { params: Promise<{ orgId: string }> };

export default async function NewAgentPage({ params }: Props) {
  const orgId = await pageParam(params, "orgId");
  const { membership } = await getConsoleMembership(orgId);
  if (membership?.role !== "admin") return <Forbidden what="Creating agents" />;
  return (
    <>
      <PageHeader title="New agent" back={{ href: `/${encodeURIComponent(orgId)}/agents`, label: "Agents" }} />
      <AgentEditor mode="create" initial={EMPTY_AGENT} />
    </>
  );
}
