"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorCode, errorMessage, useTRPC } from "@/server/trpc/client/react";
import { LocalTime } from "../../../../_components/local-time";
import type { AgentView } from "../_components/agent-draft";

/** Enrolls one contact through the same procedure as POST /agents/{agentId}/schedule/sequence, with its messages. */
export function EnrollContactForm({ agent }: { agent: AgentView }) {
  const trpc = useTRPC();
  const [fields, setFields] = useState({ name: "", phoneNumber: "", toEmailAddress: "", timezone: "", scheduledAt: "", bypassCallWindows: false });
  const [variables, setVariables] = useState<Record<string, string>>({});
  const enroll = useMutation(trpc.enrollment.enrollOne.mutationOptions());

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    const customVariables = Object.fromEntries(Object.entries(variables).filter(([, value]) => value.trim() !== ""));
    enroll.mutate({
      agentId: agent.agentId,
      name: fields.name,
      phoneNumber: fields.phoneNumber,
      ...(fields.toEmailAddress ? { toEmailAddress: fields.toEmailAddress } : {}),
      ...(fields.timezone ? { timezone: fields.timezone } : {}),
      ...(fields.scheduledAt ? { scheduledAt: fields.scheduledAt } : {}),
      ...(fields.bypassCallWindows ? { bypassCallWindows: true } : {}),
      ...(Object.keys(customVariables).length ? { customVariables } : {}),
    });
  }
  const set = (key: keyof typeof fields, value: string | boolean) => setFields((f) => ({ ...f, [key]: value }));

  return (
    <form onSubmit={onSubmit} aria-label="Enroll one contact">
      <div className="row">
        <div className="field">
          <label htmlFor="enroll-name">Name</label>
          <input id="enroll-name" type="text" value={fields.name} onChange={(e) => set("name", e.target.value)} required />
        </div>
        <div className="field">
          <label htmlFor="enroll-phone">Phone number</label>
          <input id="enroll-phone" type="text" inputMode="tel" value={fields.phoneNumber} onChange={(e) => set("phoneNumber", e.target.value)} placeholder="+14155550171" required />
        </div>
        <div className="field">
          <label htmlFor="enroll-email">Email</label>
          <input id="enroll-email" type="email" value={fields.toEmailAddress} onChange={(e) => set("toEmailAddress", e.target.value)} />
        </div>
      </div>
      <div className="row">
        <div className="field">
          <label htmlFor="enroll-timezone">Timezone</label>
          <input id="enroll-timezone" type="text" list="timezone-options" value={fields.timezone} onChange={(e) => set("timezone", e.target.value)} aria-describedby="enroll-timezone-hint" />
          <span id="enroll-timezone-hint" className="hint">
            Empty: inferred from the number, then the agent&apos;s first timezone.
          </span>
        </div>
        <div className="field">
          <label htmlFor="enroll-scheduled">First call at</label>
          <input id="enroll-scheduled" type="datetime-local" value={fields.scheduledAt} onChange={(e) => set("scheduledAt", e.target.value)} aria-describedby="enroll-scheduled-hint" />
          <span id="enroll-scheduled-hint" className="hint">
            In the contact&apos;s timezone. Empty: as soon as the window allows.
          </span>
        </div>
        <div className="field">
          <label className="checkbox">
            <input type="checkbox" checked={fields.bypassCallWindows} onChange={(e) => set("bypassCallWindows", e.target.checked)} /> Ignore call windows
          </label>
        </div>
      </div>
      {agent.inputVariables.length > 0 && (
        <div className="row">
          {agent.inputVariables.map((v) => (
            <div className="field" key={v.id}>
              <label htmlFor={`enroll-var-${v.slug}`}>
                {v.displayName}
                {v.required ? " (required)" : ""}
              </label>
              <input
                id={`enroll-var-${v.slug}`}
                type="text"
                value={variables[v.slug] ?? ""}
                onChange={(e) => setVariables((vars) => ({ ...vars, [v.slug]: e.target.value }))}
                aria-describedby={v.description ? `enroll-var-${v.slug}-hint` : undefined}
              />
              {v.description && (
                <span id={`enroll-var-${v.slug}-hint`} className="hint">
                  {v.description}
                </span>
              )}
            </div>
          ))}
        </div>
      )}
      <button type="submit" className="btn btn-primary" disabled={enroll.isPending}>
        {enroll.isPending ? "Enrolling…" : "Enroll contact"}
      </button>
      {enroll.isError && (
        <div className="alert alert-error" role="alert" data-testid="enroll-error">
          <code>{errorCode(enroll.error)}</code>: {errorMessage(enroll.error)}
        </div>
      )}
      {enroll.data && (
        <div className="alert alert-ok" role="status" data-testid="enroll-result">
          Enrolled: sequence <code>{enroll.data.sequence.sequenceId}</code>, first call <LocalTime iso={enroll.data.sequence.scheduledAt} /> (contact timezone{" "}
          {enroll.data.sequence.timezone}).
        </div>
      )}
    </form>
  );
}
