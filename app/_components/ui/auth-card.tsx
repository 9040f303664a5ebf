import type { ReactNode } from "react";
import { cn } from "./cn";

/** A page with one centred card: sign-in, invitations, "not a member", links that lead nowhere. */
export function AuthCard({ children, className }: { children: ReactNode; className?: string }) {
  return (
    <main className="grid min-h-dvh place-items-center p-4">
      <div className={cn("flex w-full max-w-md flex-col gap-4 rounded-xl border border-border bg-card p-6 sm:p-7", className)}>{children}</div>
    </main>
  );
}

/** "or" between two ways of doing the same thing. */
export function Divider({ children }: { children: ReactNode }) {
  return (
    <div className="flex items-center gap-2 text-sm text-muted-foreground before:flex-1 before:border-t before:border-border after:flex-1 after:border-t after:border-border">
      {children}
    </div>
  );
}
