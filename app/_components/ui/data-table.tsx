"use client";

import {
  createColumnHelper,
  createPaginatedRowModel,
  createSortedRowModel,
  rowExpandingFeature,
  rowPaginationFeature,
  rowSortingFeature,
  sortFn_alphanumeric,
  sortFn_basic,
  sortFn_datetime,
  sortFn_text,
  tableFeatures,
  useTable,
  type ColumnDef,
  type RowData,
  type SortingState,
} from "@tanstack/react-table";
import { ArrowDown, ArrowUp, ArrowUpDown, ChevronDown, ChevronRight } from "lucide-react";
import { Fragment, useId, type ReactNode } from "react";
import { Button } from "./button";
import { cn } from "./cn";
import { EmptyState, ErrorState, Loading } from "./states";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "./table";

export type DataTableColumnMeta = {
  /** Right-aligned tabular figures. */
  numeric?: boolean;
  /** Hidden on screens narrower than this breakpoint (the least needed columns go first on phones). */
  hideBelow?: "sm" | "md" | "lg";
  /** The column header is read by screen readers only (an actions column). */
  srOnlyHeader?: boolean;
  className?: string;
};

/**
 * The features every data table has: client sorting (click a header), client paging (`pageSize`) and expandable
 * detail rows. Registered once, here, so TanStack Table bundles only these (its feature registry is tree-shaken).
 */
export const dataTableFeatures = tableFeatures({
  rowSortingFeature,
  sortedRowModel: createSortedRowModel(),
  sortFns: { alphanumeric: sortFn_alphanumeric, text: sortFn_text, datetime: sortFn_datetime, basic: sortFn_basic },
  rowPaginationFeature,
  paginatedRowModel: createPaginatedRowModel(),
  rowExpandingFeature,
  columnMeta: {} as DataTableColumnMeta,
});

type Features = typeof dataTableFeatures;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- columns of different value types in one array (TanStack's own idiom)
export type DataTableColumn<T extends RowData> = ColumnDef<Features, T, any>;

/** `const col = columnsFor<Run>(); const columns = [col.accessor("status", {...}), col.display({...})]` (module scope). */
export function columnsFor<T extends RowData>() {
  return createColumnHelper<Features, T>();
}

const HIDE: Record<NonNullable<DataTableColumnMeta["hideBelow"]>, string> = {
  sm: "max-sm:hidden",
  md: "max-md:hidden",
  lg: "max-lg:hidden",
};

export type DataTableProps<T extends RowData> = {
  /** Stable (module scope or memoized), as TanStack Table requires. */
  columns: DataTableColumn<T>[];
  data: T[];
  getRowId: (row: T) => string;
  /** Read by screen readers: what the rows are ("API keys of this organization"). */
  caption: string;
  isLoading?: boolean;
  error?: unknown;
  onRetry?: () => void;
  /** Shown when there are no rows. */
  empty?: { title: string; description?: ReactNode };
  /** Client-side paging of the loaded rows. */
  pageSize?: number;
  /** Server-side paging by page number (`page` is 1-based). */
  serverPaging?: { page: number; pageCount: number; totalItems: number; itemLabel: string; onPageChange: (page: number) => void };
  /** Cursor paging: a "Load older …" button under the rows. */
  loadMore?: { hasMore: boolean; isLoading: boolean; onLoadMore: () => void; label: string };
  /** A detail panel under a row, opened by a toggle button in the row's last cell. */
  expandable?: { render: (row: T) => ReactNode; label: (row: T, open: boolean) => string; openLabel?: string; closeLabel?: string };
  initialSorting?: SortingState;
  rowClassName?: (row: T) => string | undefined;
  rowTestId?: (row: T) => string | undefined;
  testId?: string;
  busy?: boolean;
  className?: string;
};

/**
 * The console's one table: TanStack Table for sorting, paging and expanding, the kit's markup, and the
 * loading / error / empty states. Used by every list page (jobs, deliveries, keys, members, agents, …).
 */
export function DataTable<T extends RowData>(props: DataTableProps<T>) {
  const { columns, data, getRowId, caption, expandable } = props;
  const panelPrefix = useId();
  const table = useTable({
    features: dataTableFeatures,
    columns,
    data,
    getRowId,
    getRowCanExpand: () => Boolean(expandable),
    manualPagination: !props.pageSize,
    autoResetPageIndex: false,
    // Rows have stable ids: an open row stays open when the data changes under it (a refetch, a row updated in place).
    autoResetExpanded: false,
    initialState: { sorting: props.initialSorting ?? [], pagination: { pageIndex: 0, pageSize: props.pageSize ?? 50 } },
  });

  if (props.isLoading) return <Loading />;
  if (props.error) return <ErrorState error={props.error} retry={props.onRetry} />;
  if (data.length === 0) return <EmptyState title={props.empty?.title ?? "Nothing here yet"}>{props.empty?.description}</EmptyState>;

  const columnCount = table.getAllLeafColumns().length + (expandable ? 1 : 0);
  const rows = table.getRowModel().rows;
  return (
    <div className={cn("flex min-w-0 flex-col gap-3", props.className)}>
      <Table data-testid={props.testId} aria-busy={props.busy || undefined}>
        <TableCaption>{caption}</TableCaption>
        <TableHeader>
          {table.getHeaderGroups().map((group) => (
            <TableRow key={group.id}>
              {group.headers.map((header) => {
                const meta = header.column.columnDef.meta;
                const sorted = header.column.getIsSorted();
                const canSort = header.column.getCanSort();
                const content = header.isPlaceholder ? null : <table.FlexRender header={header} />;
                return (
                  <TableHead
                    key={header.id}
                    numeric={meta?.numeric}
                    className={cn(meta?.hideBelow && HIDE[meta.hideBelow], meta?.className)}
                    aria-sort={sorted === "asc" ? "ascending" : sorted === "desc" ? "descending" : undefined}
                  >
                    {meta?.srOnlyHeader ? (
                      <span className="sr-only">{content}</span>
                    ) : canSort ? (
                      <button
                        type="button"
                        className="inline-flex cursor-pointer items-center gap-1 font-semibold tracking-wide uppercase hover:text-foreground"
                        onClick={header.column.getToggleSortingHandler()}
                      >
                        {content}
                        {sorted === "asc" ? (
                          <ArrowUp className="size-3.5" aria-hidden="true" />
                        ) : sorted === "desc" ? (
                          <ArrowDown className="size-3.5" aria-hidden="true" />
                        ) : (
                          <ArrowUpDown className="size-3.5 opacity-50" aria-hidden="true" />
                        )}
                      </button>
                    ) : (
                      content
                    )}
                  </TableHead>
                );
              })}
              {expandable && (
                <TableHead>
                  <span className="sr-only">Details</span>
                </TableHead>
              )}
            </TableRow>
          ))}
        </TableHeader>
        <TableBody>
          {rows.map((row) => {
            const open = row.getIsExpanded();
            const panelId = `${panelPrefix}-${row.id}`;
            return (
              <Fragment key={row.id}>
                <TableRow className={props.rowClassName?.(row.original)} data-testid={props.rowTestId?.(row.original)}>
                  {row.getAllCells().map((cell) => {
                    const meta = cell.column.columnDef.meta;
                    return (
                      <TableCell key={cell.id} numeric={meta?.numeric} className={cn(meta?.hideBelow && HIDE[meta.hideBelow], meta?.className)}>
                        <table.FlexRender cell={cell} />
                      </TableCell>
                    );
                  })}
                  {expandable && (
                    <TableCell className="w-0 text-right">
                      <Button
                        size="sm"
                        variant="ghost"
                        aria-expanded={open}
                        aria-controls={open ? panelId : undefined}
                        aria-label={expandable.label(row.original, open)}
                        onClick={() => row.toggleExpanded()}
                      >
                        {open ? <ChevronDown aria-hidden="true" /> : <ChevronRight aria-hidden="true" />}
                        {open ? (expandable.closeLabel ?? "Hide") : (expandable.openLabel ?? "Details")}
                      </Button>
                    </TableCell>
                  )}
                </TableRow>
                {expandable && open && (
                  <TableRow className="bg-gray-50/60">
                    <TableCell colSpan={columnCount} id={panelId} className="p-3 sm:p-4">
                      {expandable.render(row.original)}
                    </TableCell>
                  </TableRow>
                )}
              </Fragment>
            );
          })}
        </TableBody>
      </Table>
      {props.pageSize && table.getPageCount() > 1 && (
        <Pager
          page={table.state.pagination.pageIndex + 1}
          pageCount={table.getPageCount()}
          summary={`${data.length} rows`}
          onPageChange={(page) => table.setPageIndex(page - 1)}
        />
      )}
      {props.serverPaging && (
        <Pager
          page={props.serverPaging.page}
          pageCount={Math.max(1, props.serverPaging.pageCount)}
          summary={`${props.serverPaging.totalItems} ${props.serverPaging.itemLabel}`}
          onPageChange={props.serverPaging.onPageChange}
        />
      )}
      {props.loadMore?.hasMore && (
        <div>
          <Button size="sm" disabled={props.loadMore.isLoading} onClick={props.loadMore.onLoadMore}>
            {props.loadMore.isLoading ? "Loading…" : props.loadMore.label}
          </Button>
        </div>
      )}
    </div>
  );
}

export function Pager({ page, pageCount, summary, onPageChange }: { page: number; pageCount: number; summary: string; onPageChange: (page: number) => void }) {
  return (
    <nav className="flex flex-wrap items-center gap-2" aria-label="Pages">
      <Button size="sm" disabled={page <= 1} onClick={() => onPageChange(page - 1)}>
        Previous
      </Button>
      <span className="text-sm">
        Page {page} of {pageCount} ({summary})
      </span>
      <Button size="sm" disabled={page >= pageCount} onClick={() => onPageChange(page + 1)}>
        Next
      </Button>
    </nav>
  );
}
