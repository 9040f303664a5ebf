"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import type { TMessagingSettings } from "@/server/routers/organizations/messaging-settings.schema";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input, Textarea } from "../../../_components/ui/input";
import { ErrorState, Loading } from "../../../_components/ui/states";
import { toast } from "../../../_components/ui/toast";

type Draft = { emailFrom: string; emailReplyTo: string; smsHelpText: string };

/** Who answers HELP on the organization's numbers (the server's SMS_OPT_OUT_HANDLING, docs/sequences.md "SMS"). */
const HELP_ANSWERED_BY: Record<TMessagingSettings["smsOptOutHandling"], string> = {
  "twilio-default": "Twilio answers HELP on your numbers itself (its default opt-out handling), so this text is not sent; to change Twilio's answer, use Advanced Opt-Out in your Twilio Messaging Service.",
  "advanced-opt-out": "Your Twilio Messaging Service's Advanced Opt-Out answers its help keywords; this text answers HELP or INFO when it does not.",
  app: "The answer to HELP.",
};

/** Admins: the From and Reply-To of sequence emails and the answer to an SMS HELP (checked by the server). */
export function SenderSection() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const settings = useQuery(trpc.organizations.messagingSettings.queryOptions());
  const [draft, setDraft] = useState<Draft | null>(null);
  const update = useMutation(
    trpc.organizations.updateMessagingSettings.mutationOptions({
      onSuccess: (data) => {
        queryClient.setQueryData(trpc.organizations.messagingSettings.queryKey(), data);
        setDraft(null);
        toast({ title: "Messaging settings saved" });
      },
    }),
  );
  if (settings.isPending) return <Loading rows={3} />;
  if (settings.isError) return <ErrorState error={settings.error} retry={() => void settings.refetch()} />;
  const stored = settings.data;
  const errors = formErrors(update.error, ["emailFrom", "emailReplyTo", "smsHelpText"] as const);
  const current: Draft = draft ?? { emailFrom: stored.emailFrom ?? "", emailReplyTo: stored.emailReplyTo ?? "", smsHelpText: stored.smsHelpText ?? "" };
  const set = (field: keyof Draft) => (event: { target: { value: string } }) => setDraft({ ...current, [field]: event.target.value });
  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    update.mutate({ emailFrom: current.emailFrom || null, emailReplyTo: current.emailReplyTo || null, smsHelpText: current.smsHelpText || null });
  };
  return (
    <Section title="Sender and help text" description={can.admin ? undefined : "Only admins can change these settings."}>
      <form onSubmit={onSubmit} className="flex max-w-2xl flex-col gap-3" aria-label="Sender and help text">
        <Field
          label="Email From"
          id="messaging-from"
          hint="Who sequence emails come from, e.g. Acme Sales <sales@acme.example>. Empty: the server's MAIL_FROM."
          error={errors.fields.emailFrom}
        >
          <Input value={current.emailFrom} onChange={set("emailFrom")} disabled={!can.admin} placeholder="Acme Sales <sales@acme.example>" />
        </Field>
        <Field label="Email Reply-To" id="messaging-reply-to" hint="Where replies go. Empty: to the From address." error={errors.fields.emailReplyTo}>
          <Input value={current.emailReplyTo} onChange={set("emailReplyTo")} disabled={!can.admin} placeholder="team@acme.example" />
        </Field>
        <Field
          label="SMS help text"
          id="messaging-help"
          hint={`${HELP_ANSWERED_BY[stored.smsOptOutHandling]} At most 3 SMS segments, and it must say how to opt out (STOP). Empty: “${stored.defaultSmsHelpText}”`}
          error={errors.fields.smsHelpText}
        >
          <Textarea value={current.smsHelpText} onChange={set("smsHelpText")} disabled={!can.admin} rows={3} placeholder={stored.defaultSmsHelpText} />
        </Field>
        {errors.message && <Alert tone="error">{errors.message}</Alert>}
        {can.admin && (
          <div>
            <Button type="submit" variant="primary" disabled={update.isPending || draft === null}>
              Save
            </Button>
          </div>
        )}
      </form>
    </Section>
  );
}
