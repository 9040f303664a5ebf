"use client";

export default function DashboardError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <div className="alert alert-error" role="alert">
      <strong>This page could not be shown.</strong> Something went wrong on our side; nothing was changed.{" "}
      <button type="button" className="btn btn-small" onClick={reset}>
        Try again
      </button>
    </div>
  );
}
