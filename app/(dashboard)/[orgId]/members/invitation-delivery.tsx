"use client";

import { CopyButton } from "../../../_components/copy-button";

export type DeliveryResult = { email: string; delivery: "email" | "email-failed" | "link"; inviteUrl: string | null };

/** What happened to a new (or resent) invitation link. The link itself is shown once, only when it was not emailed. */
export function InvitationDelivery({ result }: { result: DeliveryResult }) {
  if (result.delivery === "email") {
    return (
      <div className="alert alert-ok" role="status">
        An invitation was emailed to {result.email}. They become a member when they accept it.
      </div>
    );
  }
  if (result.delivery === "email-failed") {
    return (
      <div className="alert alert-error" role="alert">
        The invitation to {result.email} is saved, but the email could not be sent. Try Resend in a moment.
      </div>
    );
  }
  return (
    <div className="alert alert-ok" role="status">
      {result.email} is invited. Email is not configured here, so send them this link yourself (shown once; it works once and
      expires in 7 days). They become a member when they accept it.
      <div className="secret">
        <code data-testid="invite-link">{result.inviteUrl}</code>
        <CopyButton value={result.inviteUrl ?? ""} />
      </div>
    </div>
  );
}
