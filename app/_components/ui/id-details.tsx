"use client";

import { useState } from "react";
import { CopyButton } from "./copy-button";

/**
 * Raw identifiers for those who need them (support tickets, API calls), out of the way of everyone else: a small
 * "IDs" disclosure that lists each with a copy button.
 */
export function IdDetails({ ids, label = "IDs" }: { ids: Array<{ label: string; value: string; testId?: string }>; label?: string }) {
  const [open, setOpen] = useState(false);
  return (
    <details className="text-sm" open={open} onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary className="w-fit cursor-pointer text-muted-foreground hover:text-foreground">{label}</summary>
      <dl className="mt-1 grid gap-1">
        {ids.map((id) => (
          <div key={id.label} className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <dt className="text-muted-foreground">{id.label}</dt>
            <dd className="min-w-0">
              <code className="break-all" data-testid={id.testId}>
                {id.value}
              </code>
            </dd>
            {open && <CopyButton value={id.value} label="Copy" variant="ghost" />}
          </div>
        ))}
      </dl>
    </details>
  );
}
