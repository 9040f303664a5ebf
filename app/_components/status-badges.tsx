import { Badge, type BadgeTone } from "./ui/badge";
import { humanize } from "./ui/format";

const LIFECYCLE: Record<string, BadgeTone> = { "in progress": "warning", done: "success", cancelled: "neutral", failed: "danger" };

export function LifecycleBadge({ status }: { status: string }) {
  return <Badge tone={LIFECYCLE[status] ?? "neutral"}>{humanize(status)}</Badge>;
}

const RESULT: Record<string, BadgeTone> = {
  "Goal Completed": "success",
  "Goal Not Completed": "warning",
  "Opted Out": "danger",
  "Invalid Phone Number": "danger",
  Failed: "danger",
  Calling: "info",
  "Processing Analysis": "info",
};

export function ResultBadge({ resultType }: { resultType: string }) {
  return <Badge tone={RESULT[resultType] ?? "neutral"}>{resultType}</Badge>;
}
