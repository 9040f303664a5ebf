"use client";

import type { ReactNode } from "react";
import { errorCode, errorMessage } from "@/server/trpc/client/react";

export function Loading({ label = "Loading…", rows = 3 }: { label?: string; rows?: number }) {
  return (
    <div className="loading" role="status" aria-live="polite">
      <span className="visually-hidden">{label}</span>
      {Array.from({ length: rows }, (_, i) => (
        <div key={i} className="skeleton" style={{ width: `${90 - i * 15}%` }} aria-hidden="true" />
      ))}
    </div>
  );
}

export function ErrorState({ error, retry }: { error: unknown; retry?: () => void }) {
  const code = errorCode(error);
  return (
    <div className="alert alert-error" role="alert">
      <strong>{code === "FORBIDDEN" ? "Not allowed. " : "Could not load this. "}</strong>
      {errorMessage(error)}
      {retry && code !== "FORBIDDEN" && (
        <>
          {" "}
          <button type="button" className="btn btn-small" onClick={retry}>
            Retry
          </button>
        </>
      )}
    </div>
  );
}

export function EmptyState({ title, children }: { title: string; children?: ReactNode }) {
  return (
    <div className="empty">
      <p>
        <strong>{title}</strong>
      </p>
      {children}
    </div>
  );
}

export function Forbidden({ what }: { what: string }) {
  return (
    <div className="panel" role="alert">
      <h1>Not allowed</h1>
      <p>{what} is only available to admins of this organization. Ask an admin if you need access.</p>
    </div>
  );
}

export function PageHeader({ title, description, actions }: { title: string; description?: ReactNode; actions?: ReactNode }) {
  return (
    <div className="page-header">
      <div>
        <h1>{title}</h1>
        {description && <p>{description}</p>}
      </div>
      {actions && <div className="actions">{actions}</div>}
    </div>
  );
}
