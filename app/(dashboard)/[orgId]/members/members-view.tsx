"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrg, type Role } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { NativeSelect } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { toast } from "../../../_components/ui/toast";
import { InvitationDelivery, type DeliveryResult } from "./invitation-delivery";
import { InviteMemberForm } from "./invite-member-form";
import { PendingInvitations } from "./pending-invitations";
import { roleLabel, ROLES } from "./roles";

type Member = RouterOutputs["members"]["list"]["members"][number];
const col = columnsFor<Member>();

export function MembersView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const org = useOrg();
  const can = useCan();
  const members = useQuery(trpc.members.list.queryOptions());
  const invalidate = () => queryClient.invalidateQueries({ queryKey: trpc.members.list.queryKey() });
  const changeRole = useMutation(
    trpc.members.changeRole.mutationOptions({
      onSuccess: (_, input) => toast({ title: `Role changed to ${roleLabel(input.role)}` }),
      onSettled: () => void invalidate(),
    }),
  );
  const remove = useMutation(
    trpc.members.remove.mutationOptions({
      onSuccess: () => {
        toast({ title: "Member removed", description: "They were signed out everywhere." });
        void invalidate();
      },
    }),
  );
  const mutationError = changeRole.error ?? remove.error;
  // The latest invitation link (invite or resend), shown once; a newer one replaces it.
  const [delivered, setDelivered] = useState<DeliveryResult | null>(null);
  const admin = can.admin;
  const busy = changeRole.isPending || remove.isPending;

  const columns = useMemo(
    () => [
      col.accessor("email", {
        header: "Person",
        cell: ({ row }) => (
          <div className="min-w-0 break-all">
            {row.original.name && <div>{row.original.name}</div>}
            <div className={row.original.name ? "text-sm text-muted-foreground" : undefined}>{row.original.email}</div>
          </div>
        ),
      }),
      col.accessor("role", {
        header: "Role",
        cell: ({ row }) =>
          admin ? (
            <>
              <label className="sr-only" htmlFor={`role-${row.original.userId}`}>
                Role of {row.original.email}
              </label>
              <NativeSelect
                id={`role-${row.original.userId}`}
                value={row.original.role}
                disabled={busy}
                className="w-auto min-w-28"
                onChange={(e) => changeRole.mutate({ userId: row.original.userId, role: e.target.value as Role })}
              >
                {ROLES.map((r) => (
                  <option key={r.value} value={r.value}>
                    {r.label}
                  </option>
                ))}
              </NativeSelect>
            </>
          ) : (
            roleLabel(row.original.role)
          ),
      }),
      col.accessor("signInMethod", {
        header: "Sign-in",
        meta: { hideBelow: "md" },
        cell: ({ getValue }) => (getValue() === "password" ? "Password" : "Single sign-on"),
      }),
      col.accessor("joinedAt", { header: "Member since", meta: { hideBelow: "sm" }, cell: ({ getValue }) => <LocalTime iso={getValue()} dateOnly /> }),
      ...(admin
        ? [
            col.display({
              id: "actions",
              header: "Actions",
              meta: { srOnlyHeader: true },
              cell: ({ row }) => (
                <div className="flex justify-end">
                  <ConfirmButton
                    label="Remove"
                    title={`Remove ${row.original.email}?`}
                    confirmLabel="Remove member"
                    disabled={busy}
                    onConfirm={() => remove.mutate({ userId: row.original.userId })}
                  >
                    <p>They lose access to this organization at once and are signed out everywhere. Their account and other organizations are kept.</p>
                  </ConfirmButton>
                </div>
              ),
            }),
          ]
        : []),
    ],
    [admin, busy, changeRole, remove],
  );

  return (
    <div className="flex flex-col gap-4">
      <PageHeader title="Members" description="The people of this organization and what each may do." />
      <ul className="grid gap-1 text-sm text-muted-foreground sm:grid-cols-3">
        {ROLES.map((r) => (
          <li key={r.value}>
            <strong className="text-foreground">{r.label}</strong> — {r.help}
          </li>
        ))}
      </ul>
      {admin && <InviteMemberForm onDelivered={setDelivered} />}
      {delivered && <InvitationDelivery result={delivered} />}
      {admin && <PendingInvitations onDelivered={setDelivered} />}
      {mutationError && <Alert tone="error">{errorMessage(mutationError)}</Alert>}
      <DataTable
        columns={columns}
        data={members.data?.members ?? []}
        getRowId={(member) => member.userId}
        caption={`Members of ${org.name}`}
        isLoading={members.isPending}
        error={members.error}
        onRetry={() => void members.refetch()}
        initialSorting={[]}
      />
    </div>
  );
}
