import { Badge, type BadgeTone } from "../../../../_components/ui/badge";

export type AgentStatus = "ACTIVE" | "PAUSED" | "ARCHIVED";
const STATUS: Record<AgentStatus, { label: string; tone: BadgeTone }> = {
  ACTIVE: { label: "Active", tone: "success" },
  PAUSED: { label: "Paused", tone: "warning" },
  ARCHIVED: { label: "Archived", tone: "neutral" },
};

export function AgentStatusBadge({ status }: { status: AgentStatus }) {
  return <Badge tone={STATUS[status].tone}>{STATUS[status].label}</Badge>;
}
