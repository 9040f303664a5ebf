"use client";

import { Alert } from "../../../_components/ui/alert";
import { SecretValue } from "../../../_components/ui/copy-button";

export function SecretReveal({ secret, title }: { secret: string; title: string }) {
  return (
    <Alert tone="success" data-testid="webhook-secret">
      <p>
        <strong>{title}</strong> Copy the signing secret now: it is shown only this once. Your receiver checks each delivery&apos;s
        signature with it (the Standard Webhooks scheme).
      </p>
      <SecretValue value={secret} testId="webhook-secret-value" />
    </Alert>
  );
}
