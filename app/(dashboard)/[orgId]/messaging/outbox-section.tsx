"use client";

import { useInfiniteQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../_components/org-context";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { humanize } from "../../../_components/ui/format";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { LocalTime } from "../../../_components/ui/time";
import { EmailPreview, MESSAGE_STATUS_TONE } from "../sequences/[sequenceId]/messages-section";

/** The Outbox: every sequence email, newest first, rendered as sent; with no SMTP_URL, nothing left the server. */
export function OutboxSection() {
  const trpc = useTRPC();
  const path = useOrgPath();
  const outbox = useInfiniteQuery(
    trpc.conversations.outbox.infiniteQueryOptions({ limit: 25 }, { getNextPageParam: (page) => page.nextCursor ?? undefined }),
  );
  if (outbox.isPending) return <Loading rows={4} label="Loading the outbox…" />;
  if (outbox.isError) return <ErrorState error={outbox.error} retry={() => void outbox.refetch()} />;
  const pages = outbox.data.pages;
  const emails = pages.flatMap((page) => page.emails);
  const smtp = pages[0]?.smtpConfigured ?? false;
  return (
    <Section
      title="Outbox"
      description={
        smtp
          ? "Emails of your sequences, newest first, as they were sent through the mail server."
          : "No mail server is configured (SMTP_URL): emails stay here. This is what would have been sent, rendered."
      }
    >
      {emails.length === 0 ? (
        <p className="text-muted-foreground">No email yet. EMAIL steps of your agents' sequences appear here.</p>
      ) : (
        <ol className="flex flex-col gap-2" data-testid="outbox">
          {emails.map((email) => (
            <li key={email.messageId} className="rounded-lg border border-border px-3 py-2.5" data-testid="outbox-email">
              <div className="flex flex-wrap items-center gap-2">
                <strong>{email.subject ?? "(no subject)"}</strong>
                <Badge tone={MESSAGE_STATUS_TONE[email.status] ?? "neutral"}>{humanize(email.status)}</Badge>
                {email.transport === "outbox" && <Badge tone="neutral">Not sent: outbox</Badge>}
              </div>
              <div className="text-sm text-muted-foreground">
                To {email.contactName ? `${email.contactName} <${email.to}>` : email.to} · from {email.from || "—"}
                {email.agentName ? ` · ${email.agentName}` : ""} · <LocalTime iso={email.sentAt ?? email.scheduledAt} />
                {email.sequenceId && (
                  <>
                    {" · "}
                    <Link href={path(`/sequences/${encodeURIComponent(email.sequenceId)}`)}>Sequence</Link>
                  </>
                )}
              </div>
              {email.error && <p className="mt-1 text-sm text-danger">{email.error}</p>}
              {email.body && <EmailPreview message={email} />}
            </li>
          ))}
        </ol>
      )}
      {outbox.hasNextPage && (
        <Button className="mt-3" onClick={() => void outbox.fetchNextPage()} disabled={outbox.isFetchingNextPage}>
          Load older emails
        </Button>
      )}
    </Section>
  );
}
