"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";

/** POST /sequences/cancel from the console: every in-progress sequence whose variable equals the value. */
export function CancelByReferenceForm() {
  const trpc = useTRPC();
  const [referenceKey, setReferenceKey] = useState("");
  const [referenceValue, setReferenceValue] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const cancel = useMutation(trpc.sequences.cancel.mutationOptions({ onSuccess: () => setDone(`${referenceKey} = ${referenceValue}`) }));
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    if (window.confirm(`Cancel every in-progress sequence whose ${referenceKey} is “${referenceValue}”?`)) cancel.mutate({ referenceKey, referenceValue });
  }
  return (
    <form className="row" onSubmit={onSubmit} aria-label="Cancel sequences by reference">
      <div className="field">
        <label htmlFor="cancel-key">Variable</label>
        <input id="cancel-key" type="text" value={referenceKey} onChange={(e) => setReferenceKey(e.target.value)} placeholder="crm_ref" required />
      </div>
      <div className="field">
        <label htmlFor="cancel-value">Value</label>
        <input id="cancel-value" type="text" value={referenceValue} onChange={(e) => setReferenceValue(e.target.value)} required />
      </div>
      <div className="field" style={{ flex: "0 0 auto" }}>
        <button type="submit" className="btn btn-danger" disabled={cancel.isPending || !referenceKey || !referenceValue}>
          {cancel.isPending ? "Cancelling…" : "Cancel sequences"}
        </button>
      </div>
      {cancel.isError && (
        <div className="alert alert-error" role="alert" style={{ flexBasis: "100%" }}>
          {errorMessage(cancel.error)}
        </div>
      )}
      {done && (
        <div className="alert alert-ok" role="status" style={{ flexBasis: "100%" }}>
          Every in-progress sequence with {done} is cancelled (none matching is fine too).
        </div>
      )}
    </form>
  );
}
