"use client";

import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Fragment, useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { LocalTime } from "../../../../_components/local-time";
import { useCan } from "../../../../_components/org-context";
import { EmptyState, ErrorState, Loading } from "../../../../_components/states";

type Status = "pending" | "succeeded" | "failed" | "cancelled";
const STATUS_BADGE: Record<Status, string> = { pending: "badge-warn", succeeded: "badge-ok", failed: "badge-danger", cancelled: "badge-muted" };

function DeliveryAttempts({ deliveryId }: { deliveryId: string }) {
  const trpc = useTRPC();
  const delivery = useQuery(trpc.webhooks.getDelivery.queryOptions({ deliveryId }));
  if (delivery.isPending) return <Loading rows={2} />;
  if (delivery.isError) return <ErrorState error={delivery.error} retry={() => void delivery.refetch()} />;
  return (
    <div>
      <div className="table-wrap">
        <table data-testid="attempts">
          <caption className="visually-hidden">Attempts of this delivery</caption>
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Trigger</th>
              <th scope="col">At</th>
              <th scope="col">Result</th>
              <th scope="col" className="num">
                Time
              </th>
              <th scope="col">Response</th>
            </tr>
          </thead>
          <tbody>
            {delivery.data.attempts.map((attempt) => (
              <tr key={attempt.attemptId}>
                <td>{attempt.attemptNumber}</td>
                <td>{attempt.trigger}</td>
                <td>
                  <LocalTime iso={attempt.attemptedAt} />
                </td>
                <td>
                  <span className={`badge ${attempt.succeeded ? "badge-ok" : "badge-danger"}`}>{attempt.statusCode ?? "no response"}</span>
                  {attempt.error && <div className="hint">{attempt.error}</div>}
                  {attempt.nextAttemptAt && (
                    <div className="hint">
                      Next try <LocalTime iso={attempt.nextAttemptAt} />
                    </div>
                  )}
                </td>
                <td className="num">{attempt.durationMs} ms</td>
                <td>
                  <code style={{ whiteSpace: "pre-wrap", wordBreak: "break-all" }}>{attempt.responseSnippet.slice(0, 200) || "—"}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <details>
        <summary>Signed body</summary>
        <pre style={{ whiteSpace: "pre-wrap", wordBreak: "break-all", maxHeight: 320, overflow: "auto" }}>{delivery.data.body}</pre>
      </details>
    </div>
  );
}

export function DeliveriesLog({ endpointId }: { endpointId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const can = useCan();
  const [status, setStatus] = useState<Status | "">("");
  const [open, setOpen] = useState<string | null>(null);
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
  const rows = deliveries.data?.pages.flatMap((page) => page.deliveries) ?? [];

  return (
    <section aria-labelledby="delivery-log">
      <div className="page-header" style={{ marginTop: 24 }}>
        <h2 id="delivery-log" style={{ margin: 0 }}>
          Delivery log
        </h2>
        <div className="actions">
          <label htmlFor="delivery-status">Status</label>
          <select id="delivery-status" value={status} onChange={(e) => setStatus(e.target.value as Status | "")} style={{ width: "auto" }}>
            <option value="">All</option>
            <option value="pending">Pending (retrying)</option>
            <option value="succeeded">Succeeded</option>
            <option value="failed">Failed</option>
            <option value="cancelled">Cancelled</option>
          </select>
          <button type="button" className="btn btn-small" onClick={() => void deliveries.refetch()} disabled={deliveries.isFetching}>
            {deliveries.isFetching ? "Refreshing…" : "Refresh"}
          </button>
        </div>
      </div>
      {replay.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(replay.error)}
        </div>
      )}
      {replay.data && (
        <div className={`alert ${replay.data.outcome === "succeeded" ? "alert-ok" : "alert-warn"}`} role="status">
          Replay: {replay.data.outcome}
          {replay.data.statusCode !== null && ` (HTTP ${replay.data.statusCode})`}
          {replay.data.error && ` — ${replay.data.error}`}
        </div>
      )}
      {deliveries.isPending ? (
        <Loading />
      ) : deliveries.isError ? (
        <ErrorState error={deliveries.error} retry={() => void deliveries.refetch()} />
      ) : rows.length === 0 ? (
        <EmptyState title="No deliveries yet">Deliveries appear here after calls are analysed, or when you send a test event.</EmptyState>
      ) : (
        <>
          <div className="table-wrap">
            <table data-testid="deliveries">
              <caption className="visually-hidden">Deliveries, newest first</caption>
              <thead>
                <tr>
                  <th scope="col">Created</th>
                  <th scope="col">Kind</th>
                  <th scope="col">Status</th>
                  <th scope="col" className="num">
                    Attempts
                  </th>
                  <th scope="col">Last result</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {rows.map((delivery) => (
                  <Fragment key={delivery.deliveryId}>
                    <tr data-testid="delivery-row">
                      <td>
                        <LocalTime iso={delivery.createdAt} />
                        <div className="hint mono">{delivery.messageId}</div>
                      </td>
                      <td>
                        {delivery.kind === "test" ? "Test event" : "Call result"}
                        {delivery.callId && <div className="hint mono">{delivery.callId}</div>}
                      </td>
                      <td>
                        <span className={`badge ${STATUS_BADGE[delivery.status]}`}>{delivery.status}</span>
                        {delivery.nextAttemptAt && (
                          <div className="hint">
                            Next try <LocalTime iso={delivery.nextAttemptAt} />
                          </div>
                        )}
                      </td>
                      <td className="num">{delivery.attemptCount}</td>
                      <td>
                        {delivery.lastStatusCode ?? "—"}
                        {delivery.lastError && <div className="hint">{delivery.lastError}</div>}
                      </td>
                      <td>
                        <div className="actions">
                          <button
                            type="button"
                            className="btn btn-small"
                            aria-expanded={open === delivery.deliveryId}
                            onClick={() => setOpen(open === delivery.deliveryId ? null : delivery.deliveryId)}
                          >
                            {open === delivery.deliveryId ? "Hide attempts" : "Attempts"}
                          </button>
                          {can.admin && (
                            <button type="button" className="btn btn-small" disabled={replay.isPending} onClick={() => replay.mutate({ deliveryId: delivery.deliveryId })}>
                              Replay
                            </button>
                          )}
                        </div>
                      </td>
                    </tr>
                    {open === delivery.deliveryId && (
                      <tr>
                        <td colSpan={6}>
                          <DeliveryAttempts deliveryId={delivery.deliveryId} />
                        </td>
                      </tr>
                    )}
                  </Fragment>
                ))}
              </tbody>
            </table>
          </div>
          {deliveries.hasNextPage && (
            <button type="button" className="btn btn-small" style={{ marginTop: 8 }} disabled={deliveries.isFetchingNextPage} onClick={() => void deliveries.fetchNextPage()}>
              {deliveries.isFetchingNextPage ? "Loading…" : "Load older deliveries"}
            </button>
          )}
        </>
      )}
    </section>
  );
}
