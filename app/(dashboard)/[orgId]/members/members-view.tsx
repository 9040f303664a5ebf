"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../_components/confirm-button";
import { LocalTime } from "../../../_components/local-time";
import { useCan, useOrg, type Role } from "../../../_components/org-context";
import { ErrorState, Loading, PageHeader } from "../../../_components/states";
import { InvitationDelivery, type DeliveryResult } from "./invitation-delivery";
import { InviteMemberForm } from "./invite-member-form";
import { PendingInvitations } from "./pending-invitations";
import { ROLES } from "./roles";

export function MembersView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useOrg();
  const can = useCan();
  const members = useQuery(trpc.members.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const changeRole = useMutation(trpc.members.changeRole.mutationOptions({ onSettled: () => void invalidate() }));
  const remove = useMutation(trpc.members.remove.mutationOptions({ onSuccess: () => void invalidate() }));
  const mutationError = changeRole.error ?? remove.error;
  // The latest invitation link (invite or resend), shown once; a newer one replaces it.
  const [delivered, setDelivered] = useState<DeliveryResult | null>(null);

  return (
    <>
      <PageHeader
        title="Members"
        description={
          <>
            Roles: {ROLES.map((r, i) => (
              <span key={r.value}>
                {i > 0 && "; "}
                <strong>{r.label}</strong> — {r.help}
              </span>
            ))}
            .
          </>
        }
      />
      {can.admin && <InviteMemberForm onDelivered={setDelivered} />}
      {delivered && <InvitationDelivery result={delivered} />}
      {can.admin && <PendingInvitations onDelivered={setDelivered} />}
      {mutationError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(mutationError)}
        </div>
      )}
      {members.isPending ? (
        <Loading />
      ) : members.isError ? (
        <ErrorState error={members.error} retry={() => void members.refetch()} />
      ) : (
        <div className="table-wrap">
          <table>
            <caption className="visually-hidden">Members of {org.name}</caption>
            <thead>
              <tr>
                <th scope="col">Person</th>
                <th scope="col">Role</th>
                <th scope="col">Sign-in</th>
                <th scope="col">Member since</th>
                {can.admin && (
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                )}
              </tr>
            </thead>
            <tbody>
              {members.data.members.map((member) => (
                <tr key={member.userId}>
                  <td>
                    {member.name && <div>{member.name}</div>}
                    <div className={member.name ? "hint" : undefined}>{member.email}</div>
                  </td>
                  <td>
                    {can.admin ? (
                      <>
                        <label className="visually-hidden" htmlFor={`role-${member.userId}`}>
                          Role of {member.email}
                        </label>
                        <select
                          id={`role-${member.userId}`}
                          value={member.role}
                          disabled={changeRole.isPending}
                          onChange={(e) => changeRole.mutate({ userId: member.userId, role: e.target.value as Role })}
                        >
                          {ROLES.map((r) => (
                            <option key={r.value} value={r.value}>
                              {r.label}
                            </option>
                          ))}
                        </select>
                      </>
                    ) : (
                      member.role
                    )}
                  </td>
                  <td>{member.signInMethod === "password" ? "Password" : "Single sign-on"}</td>
                  <td>
                    <LocalTime iso={member.joinedAt} dateOnly />
                  </td>
                  {can.admin && (
                    <td>
                      <ConfirmButton
                        label="Remove"
                        title={`Remove ${member.email}?`}
                        confirmLabel="Remove member"
                        disabled={remove.isPending}
                        onConfirm={() => remove.mutate({ userId: member.userId })}
                      >
                        <p>
                          They lose access to this organization at once and are signed out everywhere. Their account and other
                          organizations are kept.
                        </p>
                      </ConfirmButton>
                    </td>
                  )}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </>
  );
}
