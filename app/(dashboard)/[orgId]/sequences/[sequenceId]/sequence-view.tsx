"use client";

import { useQuery } from "@tanstack/react-query";
import { messageChannelOf } from "@/server/services/sequences/step-kinds";
import { errorCode, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../../_components/org-context";
import { Section } from "../../../../_components/ui/card";
import { IdDetails } from "../../../../_components/ui/id-details";
import { PageHeader } from "../../../../_components/ui/page-header";
import { EmptyState, ErrorState, Loading } from "../../../../_components/ui/states";
import { LifecycleBadge } from "../../../../_components/status-badges";
import { CancelByReference } from "./cancel-by-reference";
import { MessagesSection } from "./messages-section";
import { CallsSection, ChainSection, ContactSection, StepsSection } from "./sequence-sections";
import { SimulateCallback } from "./simulate-callback";

export function SequenceView({ sequenceId }: { sequenceId: string }) {
  const trpc = useTRPC();
  const path = useOrgPath();
  const can = useCan();
  const view = useQuery(trpc.conversations.sequenceView.queryOptions({ sequenceId }));
  const back = { href: path("/conversations"), label: "Conversations" };
  if (view.isPending) return <Loading rows={8} label="Loading the sequence…" />;
  if (view.isError) {
    return (
      <>
        <PageHeader title="Sequence" back={back} />
        {errorCode(view.error) === "SEQUENCE_NOT_FOUND" ? (
          <EmptyState title="Sequence not found">There is no such sequence in this organization.</EmptyState>
        ) : (
          <ErrorState error={view.error} retry={() => void view.refetch()} />
        )}
      </>
    );
  }
  const { sequence, steps, calls, chain, messages, canSimulateCallback } = view.data;
  const done = steps.filter((step) => step.state === "done").length;

  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title={sequence.name}
        back={back}
        description={
          <div className="flex flex-col gap-1">
            <span className="flex flex-wrap items-center gap-2">
              <LifecycleBadge status={sequence.lifecycleStatus} />
              <span>
                {done} of {steps.length} steps done
              </span>
            </span>
            <IdDetails label="Sequence ID" ids={[{ label: "Sequence ID", value: sequence.sequenceId }]} />
          </div>
        }
      />
      <div className="grid grid-cols-1 gap-4 lg:grid-cols-2">
        <ContactSection sequence={sequence} />
        <StepsSection steps={steps} lifecycleStatus={sequence.lifecycleStatus} zone={sequence.timezone} />
      </div>
      <CallsSection calls={calls} zone={sequence.timezone} waiting={chain?.chainStatus === "waiting"} />
      {(messages.length > 0 || steps.some((step) => messageChannelOf(step.stepType) !== null)) && <MessagesSection messages={messages} zone={sequence.timezone} />}
      {canSimulateCallback && can.admin && (
        <Section title="Callback">
          <SimulateCallback sequenceId={sequence.sequenceId} />
        </Section>
      )}
      {chain && <ChainSection chain={chain} sequenceId={sequence.sequenceId} />}
      {sequence.lifecycleStatus === "in progress" && can.admin && (
        <Section title="Cancel">
          <CancelByReference variables={sequence.customInputVariables} />
        </Section>
      )}
    </div>
  );
}
