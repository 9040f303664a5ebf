"use client";

import { CopyButton } from "../../../_components/copy-button";

export function SecretReveal({ secret, title }: { secret: string; title: string }) {
  return (
    <div className="alert alert-ok" role="status" data-testid="webhook-secret">
      <p style={{ marginTop: 0 }}>
        <strong>{title}</strong> Copy the signing secret now: it is shown only this once. Verify each delivery&apos;s{" "}
        <code>webhook-signature</code> with it (Standard Webhooks).
      </p>
      <div className="secret">
        <code data-testid="webhook-secret-value">{secret}</code>
        <CopyButton value={secret} />
      </div>
    </div>
  );
}
