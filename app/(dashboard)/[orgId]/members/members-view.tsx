"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../_components/confirm-button";
import { CopyButton } from "../../../_components/copy-button";
import { LocalTime } from "../../../_components/local-time";
import { useCan, useOrg, type Role } from "../../../_components/org-context";
import { ErrorState, Loading, PageHeader } from "../../../_components/states";

const ROLES: Array<{ value: Role; label: string; help: string }> = [
  { value: "admin", label: "Admin", help: "everything" },
  { value: "support", label: "Support", help: "conversations, recordings, meetings; read-only elsewhere" },
  { value: "member", label: "Member", help: "read-only" },
];

export function MembersView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useOrg();
  const can = useCan();
  const members = useQuery(trpc.members.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const [email, setEmail] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [added, setAdded] = useState<{ email: string; initialPassword: string | null } | null>(null);
  const add = useMutation(
    trpc.members.add.mutationOptions({
      onSuccess: (data) => {
        setAdded({ email: data.email, initialPassword: data.initialPassword });
        setEmail("");
        void invalidate();
      },
    }),
  );
  const changeRole = useMutation(trpc.members.changeRole.mutationOptions({ onSettled: () => void invalidate() }));
  const remove = useMutation(trpc.members.remove.mutationOptions({ onSuccess: () => void invalidate() }));
  const mutationError = changeRole.error ?? remove.error;

  function onAdd(event: FormEvent) {
    event.preventDefault();
    setAdded(null);
    add.mutate({ email, role });
  }

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
      {can.admin && (
        <section className="panel" aria-labelledby="add-member">
          <h2 id="add-member" style={{ marginTop: 0 }}>
            Add a member
          </h2>
          <form onSubmit={onAdd} className="row">
            <div className="field">
              <label htmlFor="member-email">Email</label>
              <input id="member-email" type="email" value={email} onChange={(e) => setEmail(e.target.value)} required aria-invalid={add.isError} />
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
              <button className="btn btn-primary" type="submit" disabled={add.isPending || !email.trim()}>
                {add.isPending ? "Adding…" : "Add member"}
              </button>
            </div>
          </form>
          {add.isError && (
            <div className="alert alert-error" role="alert">
              {errorMessage(add.error)}
            </div>
          )}
          {added && (
            <div className="alert alert-ok" role="status">
              {added.email} was added.{" "}
              {added.initialPassword ? (
                <>
                  They have no account yet: give them this initial password (shown once).
                  <div className="secret">
                    <code>{added.initialPassword}</code>
                    <CopyButton value={added.initialPassword} />
                  </div>
                </>
              ) : (
                "They can sign in with their existing account or single sign-on."
              )}
            </div>
          )}
        </section>
      )}
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
                        <p>They lose access to this organization at once. Their account and other organizations are kept.</p>
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
