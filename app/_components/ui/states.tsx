"use client";

import type { ReactNode } from "react";
import { errorCode, errorMessage } from "@/server/trpc/client/react";
import { Alert } from "./alert";
import { Button } from "./button";
import { cn } from "./cn";

export function Skeleton({ className }: { className?: string }) {
  return (
    <div
      aria-hidden="true"
      className={cn("h-3.5 animate-shimmer rounded-md bg-[linear-gradient(90deg,#eceef1_25%,#f5f6f8_50%,#eceef1_75%)] bg-size-[200%_100%]", className)}
    />
  );
}

const WIDTHS = ["w-[90%]", "w-[75%]", "w-[60%]", "w-[45%]", "w-[30%]"];

export function Loading({ label = "Loading…", rows = 3, className }: { label?: string; rows?: number; className?: string }) {
  return (
    <div className={cn("flex flex-col gap-2.5 py-4", className)} role="status" aria-live="polite" data-testid="loading">
      <span className="sr-only">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <Skeleton key={i} className={WIDTHS[Math.min(i, WIDTHS.length - 1)]} />
      ))}
    </div>
  );
}

export function ErrorState({ error, retry, className }: { error: unknown; retry?: () => void; className?: string }) {
  const code = errorCode(error);
  return (
    <Alert tone="error" className={cn("flex flex-wrap items-center gap-2", className)}>
      <span>
        <strong>{code === "FORBIDDEN" ? "Not allowed. " : "Could not load this. "}</strong>
        {errorMessage(error)}
      </span>
      {retry && code !== "FORBIDDEN" && (
        <Button size="sm" onClick={retry}>
          Retry
        </Button>
      )}
    </Alert>
  );
}

export function EmptyState({ title, children, className }: { title: string; children?: ReactNode; className?: string }) {
  return (
    <div className={cn("rounded-lg border border-dashed border-border bg-card px-4 py-8 text-center text-muted-foreground", className)}>
      <p className="font-semibold text-foreground">{title}</p>
      {children && <div className="mt-1">{children}</div>}
    </div>
  );
}

export function Forbidden({ what }: { what: string }) {
  return (
    <div className="rounded-lg border border-border bg-card p-5" role="alert">
      <h1>Not allowed</h1>
      <p className="mt-2">{what} is only available to admins of this organization. Ask an admin if you need access.</p>
    </div>
  );
}
