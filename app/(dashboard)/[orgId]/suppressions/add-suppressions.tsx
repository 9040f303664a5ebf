"use client";

import { useMutation } from "@tanstack/react-query";
import { useRef, useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field, FieldRow } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input, Textarea } from "../../../_components/ui/input";
import { numbersOfCsv } from "./suppression-csv";

/** The API's limit per request: a larger CSV is imported in several requests. */
const IMPORT_CHUNK = 10_000;
/** `line`: where a refused number is in the imported file (typed-in numbers: their position in the list). */
type AddOutcome = { added: number; alreadySuppressed: number; rejected: Array<{ line: number; phoneNumber: string }> };

function Outcome({ outcome }: { outcome: AddOutcome }) {
  return (
    <Alert tone={outcome.rejected.length ? "warning" : "success"} data-testid="suppression-outcome">
      Added {outcome.added.toLocaleString()}, already on the list {outcome.alreadySuppressed.toLocaleString()}
      {outcome.rejected.length > 0 && (
        <>
          , not phone numbers {outcome.rejected.length.toLocaleString()}:{" "}
          {outcome.rejected
            .slice(0, 10)
            .map((item) => `line ${item.line} “${item.phoneNumber}”`)
            .join(", ")}
          {outcome.rejected.length > 10 && "…"}
        </>
      )}
      .
    </Alert>
  );
}

/** Adds numbers typed in, or the numbers of a CSV file, to the suppression list. */
export function AddSuppressions({ onAdded }: { onAdded: () => void }) {
  const trpc = useTRPC();
  const [numbers, setNumbers] = useState("");
  const [reason, setReason] = useState("");
  const [outcome, setOutcome] = useState<AddOutcome | null>(null);
  const add = useMutation(
    trpc.suppressions.add.mutationOptions({
      onSuccess: (data) => {
        setOutcome({ ...data, rejected: data.rejected.map((item) => ({ line: item.index + 1, phoneNumber: item.phoneNumber })) });
        setNumbers("");
        onAdded();
      },
    }),
  );

  const fileInput = useRef<HTMLInputElement>(null);
  const [importing, setImporting] = useState(false);
  const [importError, setImportError] = useState<string | null>(null);
  const importChunk = useMutation(trpc.suppressions.import.mutationOptions());

  const errors = formErrors(add.error, (path) =>
    path[0] === "phoneNumbers" ? { field: "phoneNumbers", label: path[1] === undefined ? undefined : `Number ${Number(path[1]) + 1}` } : path[0] === "reason" ? { field: "reason" } : null,
  );

  function onAdd(event: FormEvent) {
    event.preventDefault();
    setOutcome(null);
    const items = numbers
      .split(/[\n,;]+/)
      .map((value) => value.trim())
      .filter((value) => value !== "");
    if (items.length > 0) add.mutate({ phoneNumbers: items, reason: reason.trim() || undefined });
  }

  async function onImport(file: File) {
    setImporting(true);
    setImportError(null);
    setOutcome(null);
    try {
      const items = await numbersOfCsv(await file.text());
      const total: AddOutcome = { added: 0, alreadySuppressed: 0, rejected: [] };
      for (let start = 0; start < items.length; start += IMPORT_CHUNK) {
        const chunk = items.slice(start, start + IMPORT_CHUNK);
        const result = await importChunk.mutateAsync({ phoneNumbers: chunk.map((item) => item.phoneNumber), reason: reason.trim() || undefined });
        total.added += result.added;
        total.alreadySuppressed += result.alreadySuppressed;
        // `index` is the number's place in this request: its line in the file is what the user can find.
        total.rejected.push(...result.rejected.map((item) => ({ line: chunk[item.index]!.line, phoneNumber: item.phoneNumber })));
      }
      setOutcome(total);
      onAdded();
    } catch (error) {
      setImportError(errorMessage(error));
    } finally {
      setImporting(false);
      if (fileInput.current) fileInput.current.value = "";
    }
  }

  return (
    <Section title="Add numbers" description="Type numbers in, or import a CSV file with a column of phone numbers.">
      <form onSubmit={onAdd} className="flex flex-col gap-3">
        <Field
          label="Phone numbers"
          id="suppression-numbers"
          hint="One per line or separated by commas, in any format. Numbers without a country code are read as North American."
          error={errors.fields.phoneNumbers}
        >
          <Textarea rows={3} className="min-h-20" value={numbers} onChange={(e) => setNumbers(e.target.value)} placeholder={"+1 415 555 0171\n(212) 555-0142"} />
        </Field>
        <FieldRow>
          <Field label="Reason (optional)" id="suppression-reason" hint="Kept with each number added or imported." error={errors.fields.reason}>
            <Input value={reason} maxLength={1000} onChange={(e) => setReason(e.target.value)} placeholder="e.g. asked by email" />
          </Field>
          <Field label="Import a CSV" id="suppression-file" hint="The column named “phone” (or similar) is read, else the first one.">
            <Input
              ref={fileInput}
              type="file"
              accept=".csv,text/csv"
              className="file:mr-3 file:rounded file:border-0 file:bg-muted file:px-2 file:py-1 file:font-semibold"
              disabled={importing}
              onChange={(e) => {
                const file = e.target.files?.[0];
                if (file) void onImport(file);
              }}
            />
          </Field>
        </FieldRow>
        <div>
          <Button variant="primary" type="submit" disabled={add.isPending || !numbers.trim()}>
            {add.isPending ? "Adding…" : "Add to list"}
          </Button>
        </div>
      </form>
      <div className="mt-3 flex flex-col gap-3 empty:hidden">
        {importing && (
          <p className="text-sm text-muted-foreground" role="status">
            Importing…
          </p>
        )}
        {errors.message && <Alert tone="error">{errors.message}</Alert>}
        {importError && <Alert tone="error">{importError}</Alert>}
        {outcome && <Outcome outcome={outcome} />}
      </div>
    </Section>
  );
}
