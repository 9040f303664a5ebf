"use client";

import { Badge, type BadgeTone } from "../../../../_components/ui/badge";
import { Section } from "../../../../_components/ui/card";
import { humanize } from "../../../../_components/ui/format";
import { MESSAGE_CHANNEL_LABELS } from "@/server/services/sequences/step-kinds";
import { ZonedTime } from "../../../../_components/ui/time";
import type { RouterOutputs } from "../../../../_components/router-types";

type Message = RouterOutputs["conversations"]["sequenceView"]["messages"][number];

export const MESSAGE_STATUS_TONE: Record<string, BadgeTone> = {
  scheduled: "info",
  sending: "warning",
  sent: "success",
  delivered: "success",
  received: "info",
  undelivered: "danger",
  failed: "danger",
  bounced: "danger",
  skipped: "neutral",
};

/** An email as it was (or would have been) sent: the HTML part in a sandbox (no scripts, no same-origin access). */
export function EmailPreview({ message }: { message: Pick<Message, "subject" | "html" | "body" | "messageId"> }) {
  return (
    <details className="mt-1">
      <summary className="cursor-pointer text-sm">Show the email</summary>
      {message.html ? (
        <iframe
          title={`Email: ${message.subject ?? message.messageId}`}
          sandbox=""
          srcDoc={message.html}
          className="mt-2 h-72 w-full rounded-md border border-border bg-white"
          data-testid="email-preview"
        />
      ) : (
        <pre className="mt-2 whitespace-pre-wrap rounded-md border border-border p-2 text-sm">{message.body}</pre>
      )}
    </details>
  );
}

/**
 * The sequence's messages in the order they came: its EMAIL and SMS steps with their status (and why one failed or was
 * skipped), and the contact's SMS replies.
 */
export function MessagesSection({ messages, zone }: { messages: Message[]; zone: string }) {
  return (
    <Section title="Messages" description="Emails and texts of this sequence, and the contact's replies.">
      {messages.length === 0 ? (
        <p className="text-muted-foreground">No message yet.</p>
      ) : (
        <ol className="flex flex-col gap-2" data-testid="sequence-messages">
          {messages.map((message) => (
            <li key={message.messageId} className="rounded-lg border border-border px-3 py-2.5" data-testid="sequence-message">
              <div className="flex flex-wrap items-center gap-2">
                <strong>
                  {message.direction === "inbound"
                    ? `SMS reply from ${message.from}`
                    : `${MESSAGE_CHANNEL_LABELS[message.channel]} (step ${message.stepNumber}) to ${message.to || "—"}`}
                </strong>
                <Badge tone={MESSAGE_STATUS_TONE[message.status] ?? "neutral"}>{humanize(message.status)}</Badge>
                {message.channel === "email" && message.direction === "outbound" && message.transport === "outbox" && <Badge tone="neutral">Outbox</Badge>}
                {message.segments ? <span className="text-sm text-muted-foreground">{message.segments} segment{message.segments === 1 ? "" : "s"}</span> : null}
              </div>
              <div className="text-sm text-muted-foreground">
                <ZonedTime iso={message.sentAt ?? message.scheduledAt} contactZone={zone} />
                {message.channel === "sms" && message.direction === "outbound" && message.from ? ` · from ${message.from}` : ""}
              </div>
              {message.subject && <div className="mt-1">Subject: {message.subject}</div>}
              {message.channel === "sms" && message.body && <p className="mt-1 whitespace-pre-wrap">{message.body}</p>}
              {message.error && (
                <p className="mt-1 text-sm text-danger">
                  {message.error}
                  {message.errorCode ? ` (${message.errorCode})` : ""}
                </p>
              )}
              {message.channel === "email" && message.body && <EmailPreview message={message} />}
            </li>
          ))}
        </ol>
      )}
    </Section>
  );
}
