import type { Metadata } from "next";
import { getConsoleMembership } from "@/server/auth/next-auth";
import { Forbidden, PageHeader } from "../../../../_components/states";
import { AgentEditor } from "../_components/agent-editor";
import { EMPTY_AGENT } from "../_components/agent-draft";

export const metadata: Metadata = { title: "New agent" };

type Props = { params: Promise<{ orgId: string }> };

export default async function NewAgentPage({ params }: Props) {
  const { membership } = await getConsoleMembership(decodeURIComponent((await params).orgId));
  if (membership?.role !== "admin") return <Forbidden what="Creating agents" />;
  return (
    <>
      <PageHeader title="New agent" />
      <AgentEditor mode="create" initial={EMPTY_AGENT} />
    </>
  );
}
