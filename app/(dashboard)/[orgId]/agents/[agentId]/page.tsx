import type { Metadata } from "next";
import { AgentDetailView } from "./agent-detail-view";
import { pageParam } from "../../../../_components/page-param";

export const metadata: Metadata = { title: "Agent" };

type Props = { params: Promise<{ agentId: string }> };

export default async function AgentPage({ params }: Props) {
  return <AgentDetailView agentId={await pageParam(params, "agentId")} />;
}
