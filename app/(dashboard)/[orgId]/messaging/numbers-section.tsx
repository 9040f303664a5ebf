"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { RouterOutputs } from "../../../_components/router-types";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input, NativeSelect } from "../../../_components/ui/input";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { toast } from "../../../_components/ui/toast";

type NumberSettings = RouterOutputs["organizations"]["messagingSettings"]["phoneNumbers"][number];

function NumberForm({ number, defaultMessage }: { number: NumberSettings; defaultMessage: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [mode, setMode] = useState(number.fallbackMode);
  const [forwardTo, setForwardTo] = useState(number.forwardTo ?? "");
  const [message, setMessage] = useState(number.fallbackMessage ?? "");
  const update = useMutation(
    trpc.organizations.updatePhoneNumberSettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.organizations.messagingSettings.queryKey(), data);
        toast({ title: `${number.phoneNumber} saved` });
      },
    }),
  );
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ phoneNumber: number.phoneNumber, fallbackMode: mode, forwardTo: mode === "forward" ? forwardTo : null, fallbackMessage: message || null });
  };
  const id = number.phoneNumber.replace(/\D/g, "");
  const errors = formErrors(update.error, ["fallbackMode", "forwardTo", "fallbackMessage"] as const);
  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-2 rounded-lg border border-border px-3 py-2.5" aria-label={`Callbacks to ${number.phoneNumber}`}>
      <div>
        <strong>{number.phoneNumber}</strong> <span className="text-sm text-muted-foreground">used by {number.agentNames.join(", ")}</span>
      </div>
      <div className="grid grid-cols-1 gap-3 sm:grid-cols-[12rem_minmax(0,14rem)_minmax(0,1fr)]">
        <Field label="When no agent takes a call" id={`fallback-mode-${id}`} error={errors.fields.fallbackMode}>
          <NativeSelect value={mode} onChange={(e) => setMode(e.target.value as NumberSettings["fallbackMode"])} disabled={!can.admin}>
            <option value="message">Take a message</option>
            <option value="forward">Forward to a person</option>
          </NativeSelect>
        </Field>
        <Field label="Forward to" id={`fallback-forward-${id}`} error={errors.fields.forwardTo}>
          <Input value={forwardTo} onChange={(e) => setForwardTo(e.target.value)} disabled={!can.admin || mode !== "forward"} placeholder="+1 415 555 0100" />
        </Field>
        <Field label="Message" id={`fallback-message-${id}`} error={errors.fields.fallbackMessage}>
          <Input value={message} onChange={(e) => setMessage(e.target.value)} disabled={!can.admin} placeholder={defaultMessage} />
        </Field>
      </div>
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
      {can.admin && (
        <div>
          <Button type="submit" size="sm" disabled={update.isPending}>
            Save
          </Button>
        </div>
      )}
    </form>
  );
}

/**
 * The organization's numbers and their callbacks: a contact calling one back reaches the agent that last called them
 * from it; when no agent can take it (none on duty, an unknown caller), the number's fallback answers.
 */
export function NumbersSection() {
  const trpc = useTRPC();
  const settings = useQuery(trpc.organizations.messagingSettings.queryOptions());
  if (settings.isPending) return <Loading rows={2} />;
  if (settings.isError) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  return (
    <Section
      title="Numbers and callbacks"
      description="A contact who calls one of these numbers back reaches the agent that last called them from it, greeted by name. When no agent can take the call (the agent is paused or archived, or the caller is unknown), the number's fallback answers: the message, then a known caller leaves theirs (kept on their sequence), or the call is forwarded to a person."
    >
      {settings.data.phoneNumbers.length === 0 ? (
        <p className="text-muted-foreground">No agent has a number yet.</p>
      ) : (
        <div className="flex flex-col gap-2" data-testid="numbers">
          {settings.data.phoneNumbers.map((number) => (
            <NumberForm key={number.phoneNumber} number={number} defaultMessage={settings.data.defaultFallbackMessage} />
          ))}
        </div>
      )}
    </Section>
  );
}
