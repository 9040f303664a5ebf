"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useMemo, useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Alert } from "../../../_components/ui/alert";
import { Badge, type BadgeTone } from "../../../_components/ui/badge";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { ConfirmButton } from "../../../_components/ui/confirm-button";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { formatPhoneNumber } from "../../../_components/ui/format";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { toast } from "../../../_components/ui/toast";
import { BringYourOwn } from "./bring-your-own";
import { BuyNumber } from "./buy-number";
import { NumberDetails } from "./number-details";
import { ValidationProgress, type StartedValidation } from "./validation-progress";

type PhoneNumber = RouterOutputs["numbers"]["list"]["numbers"][number];
const col = columnsFor<PhoneNumber>();

const SOURCES: Record<PhoneNumber["source"], string> = {
  purchased: "Bought here",
  "platform-account": "Platform account",
  "verified-caller-id": "Verified caller ID",
  migrated: "From your pools",
};
const STATUSES: Record<PhoneNumber["status"], { label: string; tone: BadgeTone }> = {
  active: { label: "Active", tone: "success" },
  disputed: { label: "Disputed", tone: "danger" },
  verifying: { label: "Verifying", tone: "info" },
  released: { label: "Released", tone: "neutral" },
};
const HEALTH: Record<PhoneNumber["health"]["state"], { label: string; tone: BadgeTone }> = {
  healthy: { label: "Healthy", tone: "success" },
  watch: { label: "Under watch", tone: "warning" },
  resting: { label: "Resting", tone: "danger" },
};

export function NumbersView() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const path = useOrgPath();
  const list = useQuery(trpc.numbers.list.queryOptions({}));
  const [proving, setProving] = useState<StartedValidation | null>(null);
  // The number whose health panel is open (under the table: a chart and a day table inside a row would widen it).
  const [openId, setOpenId] = useState<string | null>(null);
  const prove = useMutation(
    trpc.numbers.startCallerIdValidation.mutationOptions({
      onSuccess: (data) => {
        setProving({ numberId: data.number.numberId, phoneNumber: data.number.phoneNumber, validationCode: data.validationCode });
        void queryClient.invalidateQueries({ queryKey: trpc.numbers.list.queryKey() });
      },
    }),
  );
  const release = useMutation(
    trpc.numbers.release.mutationOptions({
      onSuccess: (data, input) => {
        const held = list.data?.numbers.find((number) => number.numberId === input.numberId)?.agents ?? [];
        toast({
          title: `${formatPhoneNumber(data.number.phoneNumber)} released`,
          description: held.length > 0 ? `It left the pools of ${held.map((agent) => agent.name).join(", ")}.` : undefined,
        });
        void queryClient.invalidateQueries({ queryKey: trpc.numbers.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.agents.pathKey() });
      },
    }),
  );

  const isAdmin = can.admin;
  const columns = useMemo(
    () => [
      col.accessor("phoneNumber", {
        header: "Number",
        cell: ({ row }) => (
          <div className="min-w-0">
            <span className="font-semibold whitespace-nowrap tabular-nums">{formatPhoneNumber(row.original.phoneNumber)}</span>
            {(row.original.locality || row.original.region) && (
              <div className="text-sm text-muted-foreground">{[row.original.locality, row.original.region].filter(Boolean).join(", ")}</div>
            )}
          </div>
        ),
      }),
      col.accessor("status", {
        header: "Status",
        cell: ({ row }) => {
          const number = row.original;
          const status = STATUSES[number.status];
          return (
            <div className="flex min-w-0 flex-col items-start gap-1">
              <Badge tone={status.tone}>{status.label}</Badge>
              {number.status !== "active" && number.statusReason && <span className="text-sm break-words">{number.statusReason}</span>}
              {number.status === "disputed" && isAdmin && (
                <Button size="sm" disabled={prove.isPending} onClick={() => prove.mutate({ phoneNumber: number.phoneNumber })} aria-label={`Prove ${formatPhoneNumber(number.phoneNumber)} is yours`}>
                  Prove it
                </Button>
              )}
            </div>
          );
        },
      }),
      col.accessor((number) => number.health.state, {
        id: "health",
        header: "Health",
        cell: ({ row }) => {
          const { health } = row.original;
          return (
            <div className="flex min-w-0 flex-col items-start gap-1" data-testid="number-health" data-state={health.state}>
              <Badge tone={HEALTH[health.state].tone}>{HEALTH[health.state].label}</Badge>
              {health.state === "resting" && health.restingUntil && (
                <span className="text-sm">
                  until <LocalTime iso={health.restingUntil} />
                </span>
              )}
              {health.state !== "healthy" && health.reason && <span className="text-sm break-words text-muted-foreground">{health.reason}</span>}
            </div>
          );
        },
      }),
      col.accessor((number) => [number.capabilities.voice && "Voice", number.capabilities.sms && "SMS", number.capabilities.inbound && "Inbound"].filter(Boolean).join(", "), {
        id: "capabilities",
        header: "Can",
        meta: { hideBelow: "sm" },
        cell: ({ row }) => (
          <span className="flex flex-wrap gap-1">
            {row.original.capabilities.voice && <Badge>Voice</Badge>}
            {row.original.capabilities.sms && <Badge>SMS</Badge>}
            {row.original.capabilities.inbound && <Badge>Inbound</Badge>}
          </span>
        ),
      }),
      col.accessor("source", { header: "Source", meta: { hideBelow: "md" }, cell: ({ getValue }) => SOURCES[getValue()] }),
      col.accessor("dailyCallCap", {
        header: "Daily cap",
        meta: { hideBelow: "md", numeric: true },
        cell: ({ row }) => (
          <span className="whitespace-nowrap">
            {row.original.dailyCallCap.toLocaleString("en-US")}
            {row.original.dailyCallCapIsDefault && <span className="text-muted-foreground"> (default)</span>}
          </span>
        ),
      }),
      col.accessor((number) => number.agents.map((agent) => agent.name).join(", "), {
        id: "agents",
        header: "In the pools of",
        meta: { hideBelow: "lg" },
        cell: ({ row }) =>
          row.original.agents.length === 0 ? (
            <span className="text-muted-foreground">No agent</span>
          ) : (
            <ul className="flex flex-col">
              {row.original.agents.map((agent) => (
                <li key={agent.agentId}>
                  <Link href={path(`/agents/${encodeURIComponent(agent.agentId)}`)}>{agent.name}</Link>
                </li>
              ))}
            </ul>
          ),
      }),
      col.display({
        id: "actions",
        header: "Actions",
        meta: { srOnlyHeader: true },
        cell: ({ row }) => {
          const open = openId === row.original.numberId;
          return (
            <div className="flex flex-wrap justify-end gap-2">
              <Button
                size="sm"
                aria-expanded={open}
                aria-controls={open ? "number-health-panel" : undefined}
                aria-label={`${open ? "Hide" : "Show"} the health of ${formatPhoneNumber(row.original.phoneNumber)}`}
                onClick={() => setOpenId(open ? null : row.original.numberId)}
              >
                {open ? "Hide" : "Health"}
              </Button>
              {isAdmin && (
                <ConfirmButton
                  label="Release"
                  title={`Release ${formatPhoneNumber(row.original.phoneNumber)}?`}
                  confirmLabel="Release the number"
                  disabled={release.isPending}
                  onConfirm={() => release.mutate({ numberId: row.original.numberId })}
                >
                  <p>
                    The number leaves every pool at once
                    {row.original.agents.length > 0 ? ` (${row.original.agents.map((agent) => agent.name).join(", ")})` : ""}, and calls and texts to it are
                    refused from then on.
                  </p>
                  <p>
                    {row.original.source === "purchased"
                      ? "It is given back to the carrier: it stops being billed, and someone else may buy it."
                      : row.original.source === "verified-caller-id"
                        ? "The verified caller ID is deleted."
                        : "It stays in the platform account, owned by nobody."}
                  </p>
                </ConfirmButton>
              )}
            </div>
          );
        },
      }),
    ],
    [isAdmin, openId, path, prove, release],
  );

  const opened = list.data?.numbers.find((number) => number.numberId === openId) ?? null;
  const disputed = (list.data?.numbers ?? []).filter((number) => number.status === "disputed");
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Numbers"
        description="Your organization's phone numbers: the only numbers your agents may call from, text from and take calls on. Each is watched: a number people stop answering rests for a while."
      />
      {disputed.length > 0 && (
        <Alert tone="error" data-testid="disputed-numbers">
          <p className="font-semibold">
            {disputed.length === 1 ? "A number is disputed" : `${disputed.length} numbers are disputed`}: {disputed.map((number) => formatPhoneNumber(number.phoneNumber)).join(", ")}.
          </p>
          <p>
            Another organization listed {disputed.length === 1 ? "it" : "them"} too, so no call goes out from {disputed.length === 1 ? "it" : "them"} until
            you prove {disputed.length === 1 ? "it is" : "they are"} yours: {isAdmin ? "“Prove it” calls the number with a code to enter." : "an admin can prove it with a validation call."}
          </p>
        </Alert>
      )}
      <Section title="Your numbers">
        <div className="flex flex-col gap-3">
          {prove.isError && <Alert tone="error">{errorMessage(prove.error)}</Alert>}
          {proving && <ValidationProgress validation={proving} />}
          {release.isError && <Alert tone="error">{errorMessage(release.error)}</Alert>}
          <DataTable
            columns={columns}
            data={list.data?.numbers ?? []}
            getRowId={(number) => number.numberId}
            caption="The organization's phone numbers"
            isLoading={list.isPending}
            error={list.error}
            onRetry={() => void list.refetch()}
            busy={list.isFetching}
            rowTestId={(number) => `number-${number.phoneNumber}`}
            rowClassName={(number) => (number.status === "disputed" ? "bg-danger-soft" : undefined)}
            empty={{ title: "No numbers yet", description: isAdmin ? "Buy one below, or bring your own." : "An admin can buy one or bring your own." }}
          />
        </div>
      </Section>
      {opened && (
        <Section title={`Health of ${formatPhoneNumber(opened.phoneNumber)}`} id="number-health-panel">
          <NumberDetails key={opened.numberId} number={opened} />
        </Section>
      )}
      {isAdmin && <BuyNumber />}
      {isAdmin && <BringYourOwn />}
    </div>
  );
}
