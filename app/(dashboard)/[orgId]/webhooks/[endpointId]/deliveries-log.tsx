"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { useCan } from "../../../../_components/org-context";
import type { RouterOutputs } from "../../../../_components/router-types";
import { Alert } from "../../../../_components/ui/alert";
import { Badge, type BadgeTone } from "../../../../_components/ui/badge";
import { Button } from "../../../../_components/ui/button";
import { Section } from "../../../../_components/ui/card";
import { columnsFor, DataTable } from "../../../../_components/ui/data-table";
import { Field } from "../../../../_components/ui/field";
import { IdDetails } from "../../../../_components/ui/id-details";
import { NativeSelect } from "../../../../_components/ui/input";
import { ErrorState, Loading } from "../../../../_components/ui/states";
import { useScrollRegion } from "../../../../_components/ui/scroll-region";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "../../../../_components/ui/table";
import { LocalTime } from "../../../../_components/ui/time";

type Delivery = RouterOutputs["webhooks"]["listDeliveries"]["deliveries"][number];
type Status = Delivery["status"];
const STATUS: Record<Status, { label: string; tone: BadgeTone }> = {
  pending: { label: "Retrying", tone: "warning" },
  succeeded: { label: "Succeeded", tone: "success" },
  failed: { label: "Failed", tone: "danger" },
  cancelled: { label: "Cancelled", tone: "neutral" },
};
const TRIGGERS: Record<string, string> = { automatic: "Automatic", replay: "Replayed", test: "Test event" };
const DELIVERY_KIND_LABELS: Record<Delivery["kind"], string> = { "call.result": "Call result", "number.health_changed": "Number health", test: "Test event" };

function DeliveryAttempts({ delivery }: { delivery: Delivery }) {
  const trpc = useTRPC();
  const detail = useQuery(trpc.webhooks.getDelivery.queryOptions({ deliveryId: delivery.deliveryId }));
  const body = useScrollRegion<HTMLPreElement>({ label: "Signed body that was sent" });
  if (detail.isPending) return <Loading rows={2} />;
  if (detail.isError) return <ErrorState error={detail.error} retry={() => void detail.refetch()} />;
  return (
    <div className="flex min-w-0 flex-col gap-3">
      <Table data-testid="attempts">
        <TableCaption>Attempts of this delivery</TableCaption>
        <TableHeader>
          <TableRow>
            <TableHead>#</TableHead>
            <TableHead className="max-sm:hidden">Why</TableHead>
            <TableHead>At</TableHead>
            <TableHead>Result</TableHead>
            <TableHead numeric className="max-sm:hidden">
              Time
            </TableHead>
            <TableHead className="max-md:hidden">Response</TableHead>
          </TableRow>
        </TableHeader>
        <TableBody>
          {detail.data.attempts.map((attempt) => (
            <TableRow key={attempt.attemptId}>
              <TableCell>{attempt.attemptNumber}</TableCell>
              <TableCell className="max-sm:hidden">{TRIGGERS[attempt.trigger] ?? attempt.trigger}</TableCell>
              <TableCell>
                <LocalTime iso={attempt.attemptedAt} />
              </TableCell>
              <TableCell>
                <Badge tone={attempt.succeeded ? "success" : "danger"}>{attempt.statusCode ? `HTTP ${attempt.statusCode}` : "No response"}</Badge>
                {attempt.error && <div className="text-sm text-muted-foreground">{attempt.error}</div>}
                {attempt.nextAttemptAt && (
                  <div className="text-sm text-muted-foreground">
                    Next try <LocalTime iso={attempt.nextAttemptAt} />
                  </div>
                )}
              </TableCell>
              <TableCell numeric className="max-sm:hidden">
                {attempt.durationMs} ms
              </TableCell>
              <TableCell className="max-md:hidden">
                <code className="break-all whitespace-pre-wrap">{attempt.responseSnippet.slice(0, 200) || "—"}</code>
              </TableCell>
            </TableRow>
          ))}
        </TableBody>
      </Table>
      <details>
        <summary className="cursor-pointer">What was sent (signed body)</summary>
        <pre ref={body.ref} {...body.props} className="max-h-80 overflow-auto text-xs break-all whitespace-pre-wrap">
          {detail.data.body}
        </pre>
      </details>
      <IdDetails
        label="Technical details"
        ids={[
          { label: "Message ID", value: delivery.messageId },
          { label: "Delivery ID", value: delivery.deliveryId },
          ...(delivery.callId ? [{ label: "Call ID", value: delivery.callId }] : []),
        ]}
      />
    </div>
  );
}

const col = columnsFor<Delivery>();

export function DeliveriesLog({ endpointId }: { endpointId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [status, setStatus] = useState<Status | "">("");
  const deliveries = useInfiniteQuery(
    trpc.webhooks.listDeliveries.infiniteQueryOptions(
      { endpointId, status: status || undefined, limit: 25 },
      { getNextPageParam: (page) => page.nextCursor ?? undefined },
    ),
  );
  const replay = useMutation(
    trpc.webhooks.replayDelivery.mutationOptions({
      onSettled: () => void queryClient.invalidateQueries({ queryKey: trpc.webhooks.pathKey() }),
    }),
  );
  const rows = useMemo(() => deliveries.data?.pages.flatMap((page) => page.deliveries) ?? [], [deliveries.data]);
  const admin = can.admin;

  const columns = useMemo(
    () => [
      col.accessor("createdAt", { header: "Created", cell: ({ getValue }) => <LocalTime iso={getValue()} /> }),
      col.accessor("kind", { header: "Kind", meta: { hideBelow: "sm" }, cell: ({ getValue }) => DELIVERY_KIND_LABELS[getValue()] }),
      col.accessor("status", {
        header: "Status",
        cell: ({ row }) => (
          <>
            <Badge tone={STATUS[row.original.status].tone}>{STATUS[row.original.status].label}</Badge>
            {row.original.nextAttemptAt && (
              <div className="text-sm text-muted-foreground">
                Next try <LocalTime iso={row.original.nextAttemptAt} />
              </div>
            )}
          </>
        ),
      }),
      col.accessor("attemptCount", { header: "Attempts", meta: { numeric: true, hideBelow: "md" } }),
      col.accessor("lastStatusCode", {
        header: "Last result",
        meta: { hideBelow: "md" },
        cell: ({ row }) => (
          <>
            {row.original.lastStatusCode ? `HTTP ${row.original.lastStatusCode}` : "—"}
            {row.original.lastError && <div className="text-sm text-muted-foreground">{row.original.lastError}</div>}
          </>
        ),
      }),
      ...(admin
        ? [
            col.display({
              id: "replay",
              header: "Replay",
              meta: { srOnlyHeader: true },
              cell: ({ row }) => (
                <Button size="sm" disabled={replay.isPending} onClick={() => replay.mutate({ deliveryId: row.original.deliveryId })}>
                  Replay
                </Button>
              ),
            }),
          ]
        : []),
    ],
    [admin, replay],
  );

  return (
    <Section
      title="Delivery log"
      actions={
        <>
          <Field label="Status" id="delivery-status" className="flex-row items-center gap-2">
            <NativeSelect value={status} onChange={(e) => setStatus(e.target.value as Status | "")} className="w-auto">
              <option value="">All</option>
              <option value="pending">Retrying</option>
              <option value="succeeded">Succeeded</option>
              <option value="failed">Failed</option>
              <option value="cancelled">Cancelled</option>
            </NativeSelect>
          </Field>
          <Button size="sm" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
            {deliveries.isFetching ? "Refreshing…" : "Refresh"}
          </Button>
        </>
      }
    >
      <div className="flex flex-col gap-3">
        {replay.isError && <Alert tone="error">{errorMessage(replay.error)}</Alert>}
        {replay.data && (
          <Alert tone={replay.data.outcome === "succeeded" ? "success" : "warning"}>
            Replay: {replay.data.outcome === "succeeded" ? "delivered" : replay.data.outcome}
            {replay.data.statusCode !== null && ` (HTTP ${replay.data.statusCode})`}
            {replay.data.error && ` — ${replay.data.error}`}
          </Alert>
        )}
        <DataTable
          columns={columns}
          data={rows}
          getRowId={(delivery) => delivery.deliveryId}
          caption="Deliveries, newest first"
          testId="deliveries"
          rowTestId={() => "delivery-row"}
          isLoading={deliveries.isPending}
          error={deliveries.error}
          onRetry={() => void deliveries.refetch()}
          empty={{ title: "No deliveries yet", description: "Deliveries appear here after calls are analysed, or when you send a test event." }}
          expandable={{
            label: (_, open) => (open ? "Hide attempts" : "Attempts"),
            openLabel: "Attempts",
            closeLabel: "Hide attempts",
            render: (delivery) => <DeliveryAttempts delivery={delivery} />,
          }}
          loadMore={{
            hasMore: Boolean(deliveries.hasNextPage),
            isLoading: deliveries.isFetchingNextPage,
            onLoadMore: () => void deliveries.fetchNextPage(),
            label: "Load older deliveries",
          }}
        />
      </div>
    </Section>
  );
}
