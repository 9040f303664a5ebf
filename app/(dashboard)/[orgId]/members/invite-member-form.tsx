"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import type { Role } from "../../../_components/org-context";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input, NativeSelect } from "../../../_components/ui/input";
import type { DeliveryResult } from "./invitation-delivery";
import { ROLES } from "./roles";

/** Admins invite by email with a role; nobody gets a password from here. `onDelivered` shows what became of the link. */
export function InviteMemberForm({ onDelivered }: { onDelivered: (result: DeliveryResult | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const invite = useMutation(
    trpc.invitations.create.mutationOptions({
      onSuccess: (data) => {
        onDelivered({ email: data.invitation.email, delivery: data.delivery, inviteUrl: data.inviteUrl });
        setEmail("");
        void queryClient.invalidateQueries({ queryKey: trpc.invitations.list.queryKey() });
      },
    }),
  );

  // Whatever refuses an invitation is about its address (not one, already a member, already invited): said under it.
  const errors = formErrors(invite.error, ["email"] as const);
  const emailError = errors.fields.email ?? errors.message ?? undefined;

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    onDelivered(null);
    invite.mutate({ email: email.trim(), role });
  }

  return (
    <Section title="Invite a member" description="They choose their own password (or sign in to an existing account) when they accept.">
      <form onSubmit={onSubmit} className="grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,1fr)_12rem_auto]">
        <Field label="Email" error={emailError}>
          <Input type="email" value={email} maxLength={320} onChange={(e) => setEmail(e.target.value)} required />
        </Field>
        <Field label="Role">
          <NativeSelect value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <Button variant="primary" type="submit" className="sm:mt-6.5" disabled={invite.isPending || !email.trim()}>
          {invite.isPending ? "Inviting…" : "Send invitation"}
        </Button>
      </form>
    </Section>
  );
}
