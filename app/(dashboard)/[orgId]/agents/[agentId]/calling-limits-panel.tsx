"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { TAgentCallingLimitsView } from "@/server/routers/agents/calling-limits.schema";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../../_components/org-context";

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
    <form onSubmit={onSubmit}>
      {limits.status === "PAUSED" && limits.pauseReason && (
        <div className="alert alert-warn" role="status" data-testid="pause-reason">
          Paused: {limits.pauseReason}
        </div>
      )}
      <fieldset disabled={!can.admin || save.isPending} style={{ border: 0, padding: 0, margin: 0 }}>
        <div className="row">
          <div className="field">
            <label htmlFor="limit-concurrent">Maximum concurrent calls</label>
            <input id="limit-concurrent" type="number" min={1} max={10000} placeholder="No limit" value={draft.maxConcurrentCalls} onChange={(e) => set({ maxConcurrentCalls: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="limit-daily-credits">Daily credit cap</label>
            <input id="limit-daily-credits" type="number" min={1} max={10000000} placeholder="No cap" value={draft.dailyCreditCap} onChange={(e) => set({ dailyCreditCap: e.target.value })} />
          </div>
        </div>
        <div className="field">
          <label>
            <input type="checkbox" checked={draft.enabled} onChange={(e) => set({ enabled: e.target.checked })} /> Pause the agent automatically when too many calls fail
          </label>
        </div>
        <div className="row">
          <div className="field">
            <label htmlFor="limit-window">Look at the last … calls</label>
            <input id="limit-window" type="number" min={5} max={1000} required value={draft.windowCalls} onChange={(e) => set({ windowCalls: e.target.value })} />
          </div>
          <div className="field">
            <label htmlFor="limit-failure">Pause above … % Failed or Invalid Phone Number</label>
            <input id="limit-failure" type="number" min={1} max={100} required value={draft.failurePercent} onChange={(e) => set({ failurePercent: e.target.value })} />
          </div>
          {can.admin && (
            <div className="field" style={{ flex: "0 0 auto" }}>
              <button className="btn" type="submit">
                {save.isPending ? "Saving…" : "Save limits"}
              </button>
            </div>
          )}
        </div>
      </fieldset>
      <p className="hint">Empty fields mean no limit. These limits are applied to dialing in the next release.</p>
      {saved && (
        <p className="hint" role="status">
          Limits saved.
        </p>
      )}
      {save.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(save.error)}
        </div>
      )}
    </form>
  );
}

/** The agent's calling limits (caps and auto-pause) and, when paused, why. */
export function CallingLimitsPanel({ agentId }: { agentId: string }) {
  const trpc = useTRPC();
  const limits = useQuery(trpc.agents.callingLimits.queryOptions({ agentId }));
  return (
    <details className="panel" open={limits.data?.status === "PAUSED" && limits.data.pauseReason !== null}>
      <summary>
        <strong>Calling limits</strong> <span className="hint">— concurrent calls, daily credits, auto-pause</span>
      </summary>
      {limits.isPending ? <p className="hint">Loading…</p> : limits.isError ? <p className="hint">{errorMessage(limits.error)}</p> : <LimitsForm agentId={agentId} limits={limits.data} />}
    </details>
  );
}
