"use client";

import { Check, Copy } from "lucide-react";
import { useState } from "react";
import { Button, type ButtonProps } from "./button";

export function CopyButton({ value, label = "Copy", size = "sm", variant }: { value: string; label?: string; size?: ButtonProps["size"]; variant?: ButtonProps["variant"] }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  return (
    <Button
      size={size}
      variant={variant}
      onClick={async () => {
        try {
          await navigator.clipboard.writeText(value);
          setCopied("yes");
        } catch {
          setCopied("failed");
        }
        setTimeout(() => setCopied(null), 2000);
      }}
    >
      {copied === "yes" ? <Check aria-hidden="true" /> : <Copy aria-hidden="true" />}
      {copied === "yes" ? "Copied" : copied === "failed" ? "Copy failed: select the text" : label}
      <span className="sr-only" aria-live="polite">
        {copied === "yes" ? "Copied to the clipboard" : ""}
      </span>
    </Button>
  );
}

/** A secret or link shown once, with a copy button: wraps anywhere so a long key never widens the page. */
export function SecretValue({ value, testId }: { value: string; testId?: string }) {
  return (
    <div className="mt-2 flex flex-wrap items-center gap-2 rounded-md border border-dashed border-input bg-gray-50 px-2.5 py-2 text-foreground">
      <code data-testid={testId} className="min-w-0 flex-1 break-all">
        {value}
      </code>
      <CopyButton value={value} />
    </div>
  );
}
