"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { TAgentCallingLimitsView } from "@/server/routers/agents/calling-limits.schema";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../../_components/org-context";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";
import { Section } from "../../../../_components/ui/card";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { Field, FieldRow } from "../../../../_components/ui/field";
import { formErrors } from "../../../../_components/ui/form-errors";
import { Input } from "../../../../_components/ui/input";
import { ErrorState, Loading } from "../../../../_components/ui/states";

type Draft = { maxConcurrentCalls: string; dailyCreditCap: string; enabled: boolean; windowCalls: string; failurePercent: string };

function draftOf(limits: TAgentCallingLimitsView): Draft {
  return {
    maxConcurrentCalls: limits.maxConcurrentCalls === null ? "" : String(limits.maxConcurrentCalls),
    dailyCreditCap: limits.dailyCreditCap === null ? "" : String(limits.dailyCreditCap),
    enabled: limits.autoPause.enabled,
    windowCalls: String(limits.autoPause.windowCalls),
    failurePercent: String(limits.autoPause.failurePercent),
  };
}

const optionalNumber = (value: string) => (value.trim() === "" ? null : Number(value));

function LimitsForm({ agentId, limits }: { agentId: string; limits: TAgentCallingLimitsView }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [draft, setDraft] = useState(() => draftOf(limits));
  const [saved, setSaved] = useState(false);
  const save = useMutation(
    trpc.agents.updateCallingLimits.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.agents.callingLimits.queryKey({ agentId }), data);
        setSaved(true);
      },
    }),
  );
  const errors = formErrors(save.error, ["maxConcurrentCalls", "dailyCreditCap", "autoPause.windowCalls", "autoPause.failurePercent"] as const);
  const set = (change: Partial<Draft>) => {
    setSaved(false);
    setDraft({ ...draft, ...change });
  };

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    save.mutate({
      agentId,
      maxConcurrentCalls: optionalNumber(draft.maxConcurrentCalls),
      dailyCreditCap: optionalNumber(draft.dailyCreditCap),
      autoPause: { enabled: draft.enabled, windowCalls: Number(draft.windowCalls), failurePercent: Number(draft.failurePercent) },
    });
  }

  return (
    <form onSubmit={onSubmit} aria-label="Calling limits" className="flex flex-col gap-4">
      {limits.status === "PAUSED" && limits.pauseReason && (
        <Alert tone="warning" data-testid="pause-reason">
          Paused: {limits.pauseReason}
        </Alert>
      )}
      <fieldset disabled={!can.admin || save.isPending} className="flex min-w-0 flex-col gap-4 border-0 p-0">
        <legend className="sr-only">Calling limits</legend>
        <FieldRow>
          <Field label="Maximum concurrent calls" id="limit-concurrent" hint="Empty: no limit for this agent." error={errors.fields.maxConcurrentCalls}>
            <Input type="number" min={1} max={10000} placeholder="No limit" value={draft.maxConcurrentCalls} onChange={(e) => set({ maxConcurrentCalls: e.target.value })} />
          </Field>
          <Field label="Daily credit cap" id="limit-daily-credits" hint="Empty: no cap. Once reached, calls wait until the next day." error={errors.fields.dailyCreditCap}>
            <Input type="number" min={1} max={10000000} placeholder="No cap" value={draft.dailyCreditCap} onChange={(e) => set({ dailyCreditCap: e.target.value })} />
          </Field>
        </FieldRow>
        <CheckboxField
          label="Pause the agent automatically when too many calls fail"
          hint="Calls that failed or reached an invalid phone number count as failures."
          checked={draft.enabled}
          onCheckedChange={(checked) => set({ enabled: checked })}
        />
        <FieldRow>
          <Field label="Look at the last … calls" id="limit-window" error={errors.fields["autoPause.windowCalls"]}>
            <Input type="number" min={5} max={1000} required value={draft.windowCalls} onChange={(e) => set({ windowCalls: e.target.value })} />
          </Field>
          <Field label="Pause when more than … % of them failed" id="limit-failure" error={errors.fields["autoPause.failurePercent"]}>
            <Input type="number" min={1} max={100} required value={draft.failurePercent} onChange={(e) => set({ failurePercent: e.target.value })} />
          </Field>
        </FieldRow>
        {can.admin && (
          <div>
            <Button variant="primary" type="submit">
              {save.isPending ? "Saving…" : "Save limits"}
            </Button>
          </div>
        )}
      </fieldset>
      {saved && <Alert tone="success">Limits saved.</Alert>}
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
    </form>
  );
}

/** The agent's calling limits (caps and auto-pause) and, when paused, why: the agent page's "Calling limits" tab. */
export function CallingLimitsPanel({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const can = useCan();
  const limits = useQuery(trpc.agents.callingLimits.queryOptions({ agentId }));
  return (
    <Section
      title="Calling limits"
      description={`How many calls this agent makes at once, how many credits it spends a day, and when it pauses itself. These limits are applied to dialing in the next release.${can.admin ? "" : " Only admins can change them."}`}
    >
      {limits.isPending ? (
        <Loading rows={3} />
      ) : limits.isError ? (
        <ErrorState error={limits.error} retry={() => void limits.refetch()} />
      ) : (
        <LimitsForm agentId={agentId} limits={limits.data} />
      )}
    </Section>
  );
}
