"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { LocalTime } from "../../../_components/ui/time";
import type { DeliveryResult } from "./invitation-delivery";
import { roleLabel } from "./roles";

type Invitation = RouterOutputs["invitations"]["list"]["invitations"][number];
const col = columnsFor<Invitation>();

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
  const busy = resend.isPending || revoke.isPending;

  const columns = useMemo(
    () => [
      col.accessor("email", {
        header: "Email",
        cell: ({ row }) => (
          <div className="min-w-0 break-all">
            {row.original.email}
            {row.original.invitedBy && <div className="text-sm text-muted-foreground">by {row.original.invitedBy}</div>}
          </div>
        ),
      }),
      col.accessor("role", { header: "Role", cell: ({ getValue }) => roleLabel(getValue()) }),
      col.accessor("status", {
        header: "Status",
        meta: { hideBelow: "sm" },
        cell: ({ row }) =>
          row.original.status === "expired" ? (
            <Badge>Expired</Badge>
          ) : (
            <span>
              Pending, expires <LocalTime iso={row.original.expiresAt} dateOnly />
            </span>
          ),
      }),
      col.accessor("sentAt", {
        header: "Sent",
        meta: { hideBelow: "md" },
        cell: ({ row }) => (
          <>
            <LocalTime iso={row.original.sentAt} />
            <div className="text-sm text-muted-foreground">{row.original.delivery === "email" ? "by email" : "link shown to the admin"}</div>
          </>
        ),
      }),
      col.display({
        id: "actions",
        header: "Actions",
        meta: { srOnlyHeader: true },
        cell: ({ row }) => (
          <div className="flex flex-wrap justify-end gap-2">
            <Button
              size="sm"
              disabled={busy}
              onClick={() => {
                onDelivered(null);
                resend.mutate({ invitationId: row.original.invitationId });
              }}
            >
              Resend
            </Button>
            <ConfirmButton
              label="Revoke"
              title={`Revoke the invitation to ${row.original.email}?`}
              confirmLabel="Revoke invitation"
              disabled={busy}
              onConfirm={() => revoke.mutate({ invitationId: row.original.invitationId })}
            >
              <p>The link stops working at once.</p>
            </ConfirmButton>
          </div>
        ),
      }),
    ],
    [busy, onDelivered, resend, revoke],
  );

  if (invitations.isSuccess && invitations.data.invitations.length === 0) return null;
  return (
    <Section title="Pending invitations">
      {error && <Alert tone="error" className="mb-3">{errorMessage(error)}</Alert>}
      <DataTable
        columns={columns}
        data={invitations.data?.invitations ?? []}
        getRowId={(invitation) => invitation.invitationId}
        caption="Invitations not accepted yet"
        isLoading={invitations.isPending}
        error={invitations.error}
        onRetry={() => void invitations.refetch()}
      />
    </Section>
  );
}
