"use client";

import { Alert } from "../../_components/ui/alert";
import { Button } from "../../_components/ui/button";

export default function DashboardError({ reset }: { error: Error & { digest?: string }; reset: () => void }) {
  return (
    <Alert tone="error" className="flex flex-wrap items-center gap-2">
      <span>
        <strong>This page could not be shown.</strong> Something went wrong on our side; nothing was changed.
      </span>
      <Button size="sm" onClick={reset}>
        Try again
      </Button>
    </Alert>
  );
}
