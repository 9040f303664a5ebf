"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ConfirmButton } from "../../../../_components/confirm-button";

/**
 * Cancelling a sequence goes through POST /sequences/cancel, which cancels by reference: every in-progress sequence of
 * the organization whose custom input variable equals the value. The console names the reference from this sequence's
 * variables and says how many sequences it touches before anyone confirms.
 */
export function CancelByReference({ variables }: { variables: Record<string, string> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = Object.keys(variables);
  const [key, setKey] = useState(keys[0] ?? "");
  const value = variables[key] ?? "";
  const count = useQuery({ ...trpc.sequences.countByReference.queryOptions({ referenceKey: key, referenceValue: value }), enabled: Boolean(key && value) });
  const cancel = useMutation(
    trpc.sequences.cancel.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries(),
    }),
  );

  if (keys.length === 0) {
    return (
      <p className="hint">
        This sequence has no custom input variables, so it cannot be cancelled by reference (the API cancels by reference only).
      </p>
    );
  }
  const inProgress = count.data?.inProgress ?? 0;
  return (
    <div>
      <div className="row">
        <div className="field">
          <label htmlFor="cancel-reference">Reference variable</label>
          <select id="cancel-reference" value={key} onChange={(e) => setKey(e.target.value)}>
            {keys.map((name) => (
              <option key={name} value={name}>
                {name} = {variables[name]}
              </option>
            ))}
          </select>
        </div>
        <div className="field" style={{ flex: "0 0 auto" }}>
          <ConfirmButton
            label="Cancel by this reference"
            title="Cancel sequences?"
            confirmLabel={`Cancel ${inProgress} sequence${inProgress === 1 ? "" : "s"}`}
            disabled={cancel.isPending || count.isPending || inProgress === 0}
            onConfirm={() => cancel.mutate({ referenceKey: key, referenceValue: value })}
          >
            <p>
              Every in-progress sequence of this organization with <code>{key}</code> = <code>{value}</code> is cancelled:{" "}
              <strong data-testid="cancel-count">{inProgress}</strong> now
              {count.data && count.data.total > inProgress ? ` (${count.data.total - inProgress} more with this reference have ended and are skipped)` : ""}. Their
              scheduled calls are dropped; waiting chained contacts are cancelled too.
            </p>
          </ConfirmButton>
        </div>
      </div>
      <p className="hint" aria-live="polite">
        {count.isPending ? "Counting…" : `${inProgress} in-progress sequence${inProgress === 1 ? "" : "s"} with this reference.`}
      </p>
      {cancel.isSuccess && (
        <p className="alert alert-ok" role="status">
          Cancelled. Calls that were not dialed yet are dropped.
        </p>
      )}
      {cancel.isError && (
        <p className="alert alert-error" role="alert">
          {errorMessage(cancel.error)}
        </p>
      )}
    </div>
  );
}
