"use client";

import { Alert } from "../../../_components/ui/alert";
import { SecretValue } from "../../../_components/ui/copy-button";

export type DeliveryResult = { email: string; delivery: "email" | "email-failed" | "link"; inviteUrl: string | null };

/** What happened to a new (or resent) invitation link. The link itself is shown once, only when it was not emailed. */
export function InvitationDelivery({ result }: { result: DeliveryResult }) {
  if (result.delivery === "email") {
    return <Alert tone="success">An invitation was emailed to {result.email}. They become a member when they accept it.</Alert>;
  }
  if (result.delivery === "email-failed") {
    return <Alert tone="error">The invitation to {result.email} is saved, but the email could not be sent. Try Resend in a moment.</Alert>;
  }
  return (
    <Alert tone="success">
      <p>
        {result.email} is invited. Email is not configured here, so send them this link yourself (shown once; it works once and
        expires in 7 days). They become a member when they accept it.
      </p>
      <SecretValue value={result.inviteUrl ?? ""} testId="invite-link" />
    </Alert>
  );
}
