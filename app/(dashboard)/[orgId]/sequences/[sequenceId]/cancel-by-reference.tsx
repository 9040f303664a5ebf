"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../_components/ui/alert";
import { ConfirmButton } from "../../../../_components/ui/confirm-button";
import { Field } from "../../../../_components/ui/field";
import { humanize, plural } from "../../../../_components/ui/format";
import { NativeSelect } from "../../../../_components/ui/input";

/**
 * The API cancels sequences by reference: every in-progress sequence of the organization whose input variable equals
 * the value. The console names the reference from this sequence's variables and says how many sequences it touches
 * before anyone confirms.
 */
export function CancelByReference({ variables }: { variables: Record<string, string> }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const keys = Object.keys(variables);
  const [key, setKey] = useState(keys[0] ?? "");
  const value = variables[key] ?? "";
  const count = useQuery({ ...trpc.sequences.countByReference.queryOptions({ referenceKey: key, referenceValue: value }), enabled: Boolean(key && value) });
  const cancel = useMutation(trpc.sequences.cancel.mutationOptions({ onSuccess: () => void queryClient.invalidateQueries() }));

  if (keys.length === 0) {
    return <p className="text-muted-foreground">This sequence has no input variables, so it cannot be cancelled (sequences are cancelled by one of their variables).</p>;
  }
  const inProgress = count.data?.inProgress ?? 0;
  return (
    <div className="flex flex-col gap-3">
      <div className="grid grid-cols-1 items-end gap-3 sm:grid-cols-[minmax(0,22rem)_auto]">
        <Field label="Reference variable" id="cancel-reference">
          <NativeSelect value={key} onChange={(e) => setKey(e.target.value)}>
            {keys.map((name) => (
              <option key={name} value={name}>
                {humanize(name)} = {variables[name]}
              </option>
            ))}
          </NativeSelect>
        </Field>
        <ConfirmButton
          label="Cancel by this reference"
          title="Cancel sequences?"
          confirmLabel={`Cancel ${plural(inProgress, "sequence")}`}
          size="md"
          disabled={cancel.isPending || count.isPending || inProgress === 0}
          onConfirm={() => cancel.mutate({ referenceKey: key, referenceValue: value })}
        >
          <p>
            Every in-progress sequence of this organization whose {humanize(key)} is “{value}” is cancelled: <strong data-testid="cancel-count">{inProgress}</strong> now
            {count.data && count.data.total > inProgress ? ` (${count.data.total - inProgress} more with this reference have ended and are skipped)` : ""}. Their
            scheduled calls are dropped; waiting chained contacts are cancelled too.
          </p>
        </ConfirmButton>
      </div>
      <p className="text-sm text-muted-foreground" aria-live="polite">
        {count.isPending ? "Counting…" : `${plural(inProgress, "in-progress sequence")} with this reference.`}
      </p>
      {cancel.isSuccess && <Alert tone="success">Cancelled. Calls that were not dialed yet are dropped.</Alert>}
      {cancel.isError && <Alert tone="error">{errorMessage(cancel.error)}</Alert>}
    </div>
  );
}
