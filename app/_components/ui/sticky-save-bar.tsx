import type { ReactNode } from "react";
import { cn } from "./cn";

/**
 * The bar at the bottom of a long form that keeps Save in reach: it sticks to the bottom of the viewport while the
 * form scrolls. `status` says whether there are unsaved changes.
 */
export function StickySaveBar({ status, children, className }: { status?: ReactNode; children: ReactNode; className?: string }) {
  return (
    <div
      data-slot="sticky-save-bar"
      className={cn(
        "sticky bottom-0 z-30 -mx-4 mt-4 flex flex-wrap items-center justify-between gap-3 border-t border-border bg-card/95 px-4 py-3 shadow-[0_-4px_12px_rgba(0,0,0,0.06)] backdrop-blur sm:-mx-8 sm:px-8",
        className,
      )}
    >
      <div className="min-w-0 text-sm text-muted-foreground" aria-live="polite">
        {status}
      </div>
      <div className="flex flex-wrap items-center gap-2">{children}</div>
    </div>
  );
}
