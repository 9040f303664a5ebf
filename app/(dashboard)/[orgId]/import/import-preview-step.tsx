"use client";

import { useMemo, useState } from "react";
import { Badge } from "../../../_components/ui/badge";
import { Section } from "../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../_components/ui/data-table";
import { humanize } from "../../../_components/ui/format";
import { StatCard, StatGrid } from "../../../_components/ui/stat-card";
import { Tabs, TabsList, TabsTrigger } from "../../../_components/ui/tabs";
import type { RowCheck } from "./csv-import";
import type { CsvImport, LoadedFile } from "./use-csv-import";

type PreviewRow = { row: number; name: string; phone: string; check: RowCheck };
const col = columnsFor<PreviewRow>();
const columns = [
  col.accessor((r) => r.row + 1, { id: "row", header: "Row", meta: { numeric: true } }),
  col.accessor("name", { header: "Name" }),
  col.accessor("phone", {
    header: "Phone",
    meta: { hideBelow: "sm" },
    cell: ({ row }) => (
      <>
        {row.original.phone}
        {row.original.check.ok && (
          <div className="text-sm text-muted-foreground">
            {row.original.check.phoneNumber} · {row.original.check.timezone}
          </div>
        )}
      </>
    ),
  }),
  col.accessor((r) => (r.check.ok ? "" : r.check.reason), {
    id: "check",
    header: "Check",
    cell: ({ row }) => {
      const check = row.original.check;
      return check.ok ? (
        <Badge tone="success">OK</Badge>
      ) : (
        <>
          <Badge tone="danger">{humanize(check.reason)}</Badge>
          <div className="text-sm text-muted-foreground">{check.error}</div>
        </>
      );
    },
  }),
];

/** Step 3: how many rows are ready, why the others would be rejected, and the rows themselves. */
export function ImportPreviewStep({ state, file, checks }: { state: CsvImport; file: LoadedFile; checks: RowCheck[] }) {
  const [filter, setFilter] = useState<"problems" | "all">("problems");
  const { column, previewRejected, readyCount } = state;
  const nameColumn = column("name");
  const phoneColumn = column("phoneNumber");
  const rows = useMemo(
    () =>
      checks
        .map((check, row) => ({ row, check, name: nameColumn ? (file.rows[row]?.[nameColumn] ?? "") : "", phone: phoneColumn ? (file.rows[row]?.[phoneColumn] ?? "") : "" }))
        .filter(({ check }) => filter === "all" || !check.ok),
    [checks, file, filter, nameColumn, phoneColumn],
  );
  const reasonCounts = new Map<string, number>();
  for (const r of previewRejected) reasonCounts.set(r.reason, (reasonCounts.get(r.reason) ?? 0) + 1);

  return (
    <Section title="3. Preview">
      <div className="flex flex-col gap-3">
        <StatGrid>
          <StatCard label="Ready to import" value={<span data-testid="ready-count">{readyCount.toLocaleString()}</span>} />
          <StatCard label="Will be rejected" value={<span data-testid="problem-count">{previewRejected.length.toLocaleString()}</span>} />
        </StatGrid>
        {reasonCounts.size > 0 && (
          <ul className="list-disc pl-5 text-sm text-muted-foreground">
            {[...reasonCounts].map(([reason, count]) => (
              <li key={reason}>
                {humanize(reason)}: {count.toLocaleString()}
              </li>
            ))}
          </ul>
        )}
        <Tabs value={filter} onValueChange={(value) => setFilter(value as "problems" | "all")}>
          <TabsList aria-label="Rows to show" className="mb-0">
            <TabsTrigger value="problems">Rows with problems ({previewRejected.length.toLocaleString()})</TabsTrigger>
            <TabsTrigger value="all">All rows ({checks.length.toLocaleString()})</TabsTrigger>
          </TabsList>
        </Tabs>
        <DataTable
          key={filter}
          columns={columns}
          data={rows}
          getRowId={(r) => String(r.row)}
          caption={filter === "all" ? "Every row of the file" : "Rows that would be rejected"}
          testId="preview"
          pageSize={25}
          empty={{ title: "No problems: every row passed." }}
        />
      </div>
    </Section>
  );
}
