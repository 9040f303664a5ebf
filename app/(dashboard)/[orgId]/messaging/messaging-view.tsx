"use client";

import { PageHeader } from "../../../_components/ui/page-header";
import { NumbersSection } from "./numbers-section";
import { OutboxSection } from "./outbox-section";
import { SenderSection } from "./sender-section";

/** Sequence emails and texts: the outbox (what was, or would have been, sent), the sender settings and the numbers' callbacks. */
export function MessagingView() {
  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="Messaging" description="The emails of your sequences, who they come from, the SMS help text, and what a call to your numbers gets when no agent takes it." />
      <OutboxSection />
      <SenderSection />
      <NumbersSection />
    </div>
  );
}
