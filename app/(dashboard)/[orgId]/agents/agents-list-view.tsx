"use client";

import { keepPreviousData, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useMemo, useState } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { useCan, useOrgPath } from "../../../_components/org-context";
import type { RouterOutputs } from "../../../_components/router-types";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { Field } from "../../../_components/ui/field";
import { Input, NativeSelect } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { LocalTime } from "../../../_components/ui/time";
import { AgentStatusBadge, type AgentStatus } from "./_components/agent-status";
import { CancelByReferenceForm } from "./cancel-by-reference-form";

type Agent = RouterOutputs["agents"]["listForConsole"]["agents"][number];
const col = columnsFor<Agent>();

export function AgentsListView() {
  const trpc = useTRPC();
  const can = useCan();
  const path = useOrgPath();
  const [searchInput, setSearchInput] = useState("");
  const [search, setSearch] = useState("");
  const [status, setStatus] = useState<AgentStatus | "">("");
  const [page, setPage] = useState(1);
  useEffect(() => {
    const timer = setTimeout(() => {
      setSearch(searchInput.trim());
      setPage(1);
    }, 250);
    return () => clearTimeout(timer);
  }, [searchInput]);
  const agents = useQuery({
    ...trpc.agents.listForConsole.queryOptions({ page, search: search || undefined, status: status || undefined }),
    placeholderData: keepPreviousData,
  });

  const columns = useMemo(
    () => [
      col.accessor("name", {
        header: "Name",
        cell: ({ row }) => (
          <Link href={path(`/agents/${encodeURIComponent(row.original.agentId)}`)} className="font-medium break-words">
            {row.original.name}
          </Link>
        ),
      }),
      col.accessor("status", { header: "Status", cell: ({ getValue }) => <AgentStatusBadge status={getValue()} /> }),
      col.accessor("timezone", { header: "Timezone", meta: { hideBelow: "md" }, cell: ({ getValue }) => getValue() ?? "—" }),
      col.accessor("stepCount", { header: "Steps", meta: { numeric: true, hideBelow: "sm" } }),
      col.accessor("updatedAt", { header: "Updated", meta: { hideBelow: "md" }, cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
    ],
    [path],
  );

  const filtered = Boolean(search || status);
  return (
    <div className="flex flex-col gap-4">
      <PageHeader
        title="Agents"
        description="Agents call your contacts through their sequence of steps."
        actions={
          can.admin && (
            <Button asChild variant="primary">
              <Link href={path("/agents/new")}>New agent</Link>
            </Button>
          )
        }
      />
      <div role="search" className="grid grid-cols-1 gap-3 sm:grid-cols-[minmax(0,24rem)_12rem]">
        <Field label="Search" id="agent-search">
          <Input type="search" placeholder="Name or agent ID" value={searchInput} onChange={(e) => setSearchInput(e.target.value)} />
        </Field>
        <Field label="Status" id="agent-status-filter">
          <NativeSelect
            value={status}
            onChange={(e) => {
              setStatus(e.target.value as AgentStatus | "");
              setPage(1);
            }}
          >
            <option value="">All</option>
            <option value="ACTIVE">Active</option>
            <option value="PAUSED">Paused</option>
            <option value="ARCHIVED">Archived</option>
          </NativeSelect>
        </Field>
      </div>
      <DataTable
        columns={columns}
        data={agents.data?.agents ?? []}
        getRowId={(agent) => agent.agentId}
        caption="Agents"
        isLoading={agents.isPending}
        error={agents.error}
        onRetry={() => void agents.refetch()}
        busy={agents.isFetching}
        empty={{
          title: filtered ? "No agents match these filters" : "No agents yet",
          description: can.admin && !filtered ? <Link href={path("/agents/new")}>Create the first agent</Link> : undefined,
        }}
        serverPaging={
          agents.data && {
            page: agents.data.pagination.page,
            pageCount: agents.data.pagination.totalPages,
            totalItems: agents.data.pagination.totalItems,
            itemLabel: agents.data.pagination.totalItems === 1 ? "agent" : "agents",
            onPageChange: setPage,
          }
        }
      />
      {can.admin && (
        <Section
          title="Cancel sequences by reference"
          description="Stops every sequence still in progress, for any agent, whose input variable has this value (for example a CRM record that was closed)."
        >
          <CancelByReferenceForm />
        </Section>
      )}
    </div>
  );
}
