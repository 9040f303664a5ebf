"use client";

import { useMutation } from "@tanstack/react-query";
import Link from "next/link";
import { useState, type FormEvent } from "react";
import { errorCode, errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useOrgPath } from "../../../../_components/org-context";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";
import { Section } from "../../../../_components/ui/card";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { Field, FieldRow } from "../../../../_components/ui/field";
import { IdDetails } from "../../../../_components/ui/id-details";
import { Input } from "../../../../_components/ui/input";
import { ZonedTime } from "../../../../_components/ui/time";
import type { AgentView } from "../_components/agent-draft";

/** Enrolls one contact through the same procedure (and so the same rules and messages) as the API's enrollment. */
export function EnrollContactForm({ agent }: { agent: AgentView }) {
  const trpc = useTRPC();
  const path = useOrgPath();
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
    <Section title="Enroll a contact" description="Starts this agent's sequence for one person, with the same checks as when your systems enroll through the API.">
      <form onSubmit={onSubmit} aria-label="Enroll one contact" className="flex flex-col gap-3">
        <FieldRow>
          <Field label="Name" id="enroll-name">
            <Input value={fields.name} onChange={(e) => set("name", e.target.value)} required />
          </Field>
          <Field label="Phone number" id="enroll-phone">
            <Input inputMode="tel" value={fields.phoneNumber} onChange={(e) => set("phoneNumber", e.target.value)} placeholder="+1 415 555 0171" required />
          </Field>
          <Field label="Email" id="enroll-email">
            <Input type="email" value={fields.toEmailAddress} onChange={(e) => set("toEmailAddress", e.target.value)} />
          </Field>
        </FieldRow>
        <FieldRow>
          <Field label="Timezone" id="enroll-timezone" hint="Empty: guessed from the number, then the agent's first timezone.">
            <Input list="timezone-options" value={fields.timezone} onChange={(e) => set("timezone", e.target.value)} />
          </Field>
          <Field label="First call at" id="enroll-scheduled" hint="In the contact's timezone. Empty: as soon as the window allows.">
            <Input type="datetime-local" value={fields.scheduledAt} onChange={(e) => set("scheduledAt", e.target.value)} />
          </Field>
          <CheckboxField
            id="enroll-bypass"
            label="Ignore call windows"
            className="sm:mt-7"
            checked={fields.bypassCallWindows}
            onCheckedChange={(checked) => set("bypassCallWindows", checked === true)}
          />
        </FieldRow>
        {agent.inputVariables.length > 0 && (
          <FieldRow>
            {agent.inputVariables.map((v) => (
              <Field key={v.id} label={`${v.displayName}${v.required ? " (required)" : ""}`} id={`enroll-var-${v.slug}`} hint={v.description || undefined}>
                <Input value={variables[v.slug] ?? ""} onChange={(e) => setVariables((vars) => ({ ...vars, [v.slug]: e.target.value }))} />
              </Field>
            ))}
          </FieldRow>
        )}
        <div>
          <Button type="submit" variant="primary" disabled={enroll.isPending}>
            {enroll.isPending ? "Enrolling…" : "Enroll contact"}
          </Button>
        </div>
        {enroll.isError && (
          <Alert tone="error" data-testid="enroll-error">
            {errorMessage(enroll.error)} <span className="text-sm">(code {errorCode(enroll.error)})</span>
          </Alert>
        )}
        {enroll.data && (
          <Alert tone="success" data-testid="enroll-result">
            <p>
              Enrolled. First call <ZonedTime iso={enroll.data.sequence.scheduledAt} contactZone={enroll.data.sequence.timezone} />.{" "}
              <Link href={path(`/sequences/${encodeURIComponent(enroll.data.sequence.sequenceId)}`)}>Open the sequence →</Link>
            </p>
            <IdDetails ids={[{ label: "Sequence ID", value: enroll.data.sequence.sequenceId }]} />
          </Alert>
        )}
      </form>
    </Section>
  );
}
