"use client";

import { useMutation } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input } from "../../../_components/ui/input";

/** Cancels, from the console, every in-progress sequence whose variable equals the value (the API's cancel by reference). */
export function CancelByReferenceForm() {
  const trpc = useTRPC();
  const [referenceKey, setReferenceKey] = useState("");
  const [referenceValue, setReferenceValue] = useState("");
  const [done, setDone] = useState<string | null>(null);
  const cancel = useMutation(trpc.sequences.cancel.mutationOptions({ onSuccess: () => setDone(`${referenceKey} = ${referenceValue}`) }));
  const errors = formErrors(cancel.error, ["referenceKey", "referenceValue"] as const);
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setDone(null);
    if (window.confirm(`Cancel every in-progress sequence whose ${referenceKey} is “${referenceValue}”?`)) cancel.mutate({ referenceKey, referenceValue });
  }
  return (
    <form className="flex flex-col gap-3" onSubmit={onSubmit} aria-label="Cancel sequences by reference">
      <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-[minmax(0,1fr)_minmax(0,1fr)_auto]">
        <Field label="Variable" id="cancel-key" error={errors.fields.referenceKey}>
          <Input value={referenceKey} onChange={(e) => setReferenceKey(e.target.value)} placeholder="crm_ref" required />
        </Field>
        <Field label="Value" id="cancel-value" error={errors.fields.referenceValue}>
          <Input value={referenceValue} onChange={(e) => setReferenceValue(e.target.value)} required />
        </Field>
        <Button type="submit" variant="danger" className="sm:mt-6.5" disabled={cancel.isPending || !referenceKey || !referenceValue}>
          {cancel.isPending ? "Cancelling…" : "Cancel sequences"}
        </Button>
      </div>
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
      {done && <Alert tone="success">Every in-progress sequence with {done} is cancelled (none matching is fine too).</Alert>}
    </form>
  );
}
