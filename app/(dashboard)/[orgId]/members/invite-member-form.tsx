"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import type { Role } from "../../../_components/org-context";
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
    <section className="panel" aria-labelledby="invite-member">
      <h2 id="invite-member" style={{ marginTop: 0 }}>
        Invite a member
      </h2>
      <form onSubmit={onSubmit} className="row">
        <div className="field">
          <label htmlFor="member-email">Email</label>
          <input
            id="member-email"
            type="email"
            value={email}
            maxLength={320}
            onChange={(e) => setEmail(e.target.value)}
            required
            aria-invalid={invite.isError}
          />
        </div>
        <div className="field" style={{ flex: "0 1 180px" }}>
          <label htmlFor="member-role">Role</label>
          <select id="member-role" value={role} onChange={(e) => setRole(e.target.value as Role)}>
            {ROLES.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
        </div>
        <div className="field" style={{ flex: "0 0 auto" }}>
          <button className="btn btn-primary" type="submit" disabled={invite.isPending || !email.trim()}>
            {invite.isPending ? "Inviting…" : "Send invitation"}
          </button>
        </div>
      </form>
      {invite.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(invite.error)}
        </div>
      )}
    </section>
  );
}
