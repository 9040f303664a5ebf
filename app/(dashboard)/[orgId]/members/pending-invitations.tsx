"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../_components/confirm-button";
import { LocalTime } from "../../../_components/local-time";
import { ErrorState, Loading } from "../../../_components/states";
import type { DeliveryResult } from "./invitation-delivery";

/** Open invitations (admins only): resend issues a new link (the old one stops working), revoke cancels it. */
export function PendingInvitations({ onDelivered }: { onDelivered: (result: DeliveryResult | null) => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invitations = useQuery(trpc.invitations.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.invitations.list.queryKey() });
  const resend = useMutation(
    trpc.invitations.resend.mutationOptions({
      onSuccess: (data) => {
        onDelivered({ email: data.invitation.email, delivery: data.delivery, inviteUrl: data.inviteUrl });
        void invalidate();
      },
    }),
  );
  const revoke = useMutation(trpc.invitations.revoke.mutationOptions({ onSuccess: () => void invalidate() }));
  const error = resend.error ?? revoke.error;

  if (invitations.isPending) return <Loading rows={1} />;
  if (invitations.isError) return <ErrorState error={invitations.error} retry={() => void invitations.refetch()} />;
  if (invitations.data.invitations.length === 0) return null;
  return (
    <section aria-labelledby="pending-invitations">
      <h2 id="pending-invitations">Pending invitations</h2>
      {error && (
        <div className="alert alert-error" role="alert">
          {errorMessage(error)}
        </div>
      )}
      <div className="table-wrap">
        <table>
          <thead>
            <tr>
              <th scope="col">Email</th>
              <th scope="col">Role</th>
              <th scope="col">Status</th>
              <th scope="col">Sent</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {invitations.data.invitations.map((invitation) => (
              <tr key={invitation.invitationId}>
                <td>
                  {invitation.email}
                  {invitation.invitedBy && <div className="hint">by {invitation.invitedBy}</div>}
                </td>
                <td>{invitation.role}</td>
                <td>
                  {invitation.status === "expired" ? (
                    <span className="badge badge-muted">expired</span>
                  ) : (
                    <>
                      pending, expires <LocalTime iso={invitation.expiresAt} dateOnly />
                    </>
                  )}
                </td>
                <td>
                  <LocalTime iso={invitation.sentAt} />
                  <div className="hint">{invitation.delivery === "email" ? "by email" : "link shown to the admin"}</div>
                </td>
                <td>
                  <div className="row" style={{ gap: 8 }}>
                    <button
                      type="button"
                      className="btn btn-small"
                      disabled={resend.isPending}
                      onClick={() => {
                        onDelivered(null);
                        resend.mutate({ invitationId: invitation.invitationId });
                      }}
                    >
                      Resend
                    </button>
                    <ConfirmButton
                      label="Revoke"
                      title={`Revoke the invitation to ${invitation.email}?`}
                      confirmLabel="Revoke invitation"
                      disabled={revoke.isPending}
                      onConfirm={() => revoke.mutate({ invitationId: invitation.invitationId })}
                    >
                      <p>The link stops working at once.</p>
                    </ConfirmButton>
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}
