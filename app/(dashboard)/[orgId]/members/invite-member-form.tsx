"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import type { Role } from "../../../_components/org-context";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field } from "../../../_components/ui/field";
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

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    onDelivered(null);
    invite.mutate({ email: email.trim(), role });
  }

  return (
    <Section title="Invite a member" description="They choose their own password (or sign in to an existing account) when they accept.">
      <form onSubmit={onSubmit} className="grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,1fr)_12rem_auto]">
        <Field label="Email">
          <Input type="email" value={email} maxLength={320} onChange={(e) => setEmail(e.target.value)} required aria-invalid={invite.isError || undefined} />
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
        <Button variant="primary" type="submit" disabled={invite.isPending || !email.trim()}>
          {invite.isPending ? "Inviting…" : "Send invitation"}
        </Button>
      </form>
      {invite.isError && <Alert tone="error" className="mt-3">{errorMessage(invite.error)}</Alert>}
    </Section>
  );
}
