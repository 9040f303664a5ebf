import type { ReactNode } from "react";
import { cn } from "./cn";

/** One figure with its label (and a line of context under it). */
export function StatCard({ label, value, hint, className, testId }: { label: ReactNode; value: ReactNode; hint?: ReactNode; className?: string; testId?: string }) {
  return (
    <div className={cn("min-w-0 rounded-lg border border-border bg-card px-4 py-3", className)} data-testid={testId}>
      <div className="text-sm text-muted-foreground">{label}</div>
      <div className="text-2xl font-bold tabular-nums break-words">{value}</div>
      {hint && <div className="text-sm text-muted-foreground">{hint}</div>}
    </div>
  );
}

export function StatGrid({ className, children }: { className?: string; children: ReactNode }) {
  return <div className={cn("grid grid-cols-1 gap-3 min-[420px]:grid-cols-2 lg:grid-cols-4", className)}>{children}</div>;
}
