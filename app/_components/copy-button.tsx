"use client";

import { useState } from "react";

export function CopyButton({ value, label = "Copy" }: { value: string; label?: string }) {
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);
  return (
    <button
      type="button"
      className="btn btn-small"
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
      {copied === "yes" ? "Copied" : copied === "failed" ? "Copy failed: select the text" : label}
      <span className="visually-hidden" aria-live="polite">
        {copied === "yes" ? "Copied to the clipboard" : ""}
      </span>
    </button>
  );
}
