const LIFECYCLE_CLASS: Record<string, string> = {
  "in progress": "badge badge-warn",
  done: "badge badge-ok",
  cancelled: "badge badge-muted",
  failed: "badge badge-danger",
};

export function LifecycleBadge({ status }: { status: string }) {
  return <span className={LIFECYCLE_CLASS[status] ?? "badge badge-muted"}>{status}</span>;
}

const RESULT_CLASS: Record<string, string> = {
  "Goal Completed": "badge badge-ok",
  "Goal Not Completed": "badge badge-warn",
  Voicemail: "badge badge-muted",
  Busy: "badge badge-muted",
  "No Conversation": "badge badge-muted",
  "Opted Out": "badge badge-danger",
  "Invalid Phone Number": "badge badge-danger",
  Failed: "badge badge-danger",
  Cancelled: "badge badge-muted",
  Scheduled: "badge badge-muted",
  Rescheduled: "badge badge-muted",
  Calling: "badge badge-warn",
  "Processing Analysis": "badge badge-warn",
};

export function ResultBadge({ resultType }: { resultType: string }) {
  return <span className={RESULT_CLASS[resultType] ?? "badge badge-muted"}>{resultType}</span>;
}

/** `93` → `1:33`. */
export function formatDuration(seconds: number): string {
  const whole = Math.max(0, Math.floor(seconds));
  const hours = Math.floor(whole / 3600);
  const minutes = Math.floor((whole % 3600) / 60);
  const rest = String(whole % 60).padStart(2, "0");
  return hours > 0 ? `${hours}:${String(minutes).padStart(2, "0")}:${rest}` : `${minutes}:${rest}`;
}
