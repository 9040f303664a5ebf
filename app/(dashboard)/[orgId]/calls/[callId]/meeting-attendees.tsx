"use client";

import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../_components/ui/alert";
import { Button } from "../../../../_components/ui/button";
import { Field } from "../../../../_components/ui/field";
import { formErrors } from "../../../../_components/ui/form-errors";
import { Input } from "../../../../_components/ui/input";
import { ErrorState, Loading } from "../../../../_components/ui/states";
import { Table, TableBody, TableCaption, TableCell, TableHead, TableHeader, TableRow } from "../../../../_components/ui/table";

type AttendeeDraft = { email: string; name: string; timeZone: string; phoneNumber: string; language: string };
const MAX_ATTENDEES = 30;
const emptyAttendee = (): AttendeeDraft => ({ email: "", name: "", timeZone: "", phoneNumber: "", language: "" });
const FIELDS: Array<{ field: keyof AttendeeDraft; label: string; type?: string; placeholder?: string }> = [
  { field: "email", label: "Email (required)", type: "email" },
  { field: "name", label: "Name" },
  { field: "timeZone", label: "Time zone", placeholder: "Europe/Berlin" },
  { field: "phoneNumber", label: "Phone", placeholder: "+1 415 555 0171" },
  { field: "language", label: "Language", placeholder: "en" },
];

/** The attendees, read live from the calendar provider. */
export function AttendeeList({ callId }: { callId: string }) {
  const trpc = useTRPC();
  const attendees = useQuery(trpc.meetings.listAttendees.queryOptions({ entityId: callId }));
  return (
    <div className="flex flex-col gap-2">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <h3>Attendees</h3>
        <Button size="sm" onClick={() => void attendees.refetch()} disabled={attendees.isFetching}>
          {attendees.isFetching ? "Reading…" : "Refresh"}
        </Button>
      </div>
      {attendees.isPending ? (
        <Loading rows={2} label="Reading attendees…" />
      ) : attendees.isError ? (
        <ErrorState error={attendees.error} retry={() => void attendees.refetch()} />
      ) : (
        <>
          <Table data-testid="attendees">
            <TableCaption>Attendees of the meeting</TableCaption>
            <TableHeader>
              <TableRow>
                <TableHead>Email</TableHead>
                <TableHead>Name</TableHead>
                <TableHead className="max-sm:hidden">Time zone</TableHead>
                <TableHead className="max-md:hidden">Phone</TableHead>
              </TableRow>
            </TableHeader>
            <TableBody>
              {attendees.data.attendees.map((attendee) => (
                <TableRow key={attendee.email}>
                  <TableCell className="break-all">{attendee.email}</TableCell>
                  <TableCell>{attendee.name ?? "—"}</TableCell>
                  <TableCell className="max-sm:hidden">{attendee.timeZone ?? "—"}</TableCell>
                  <TableCell className="max-md:hidden">{attendee.phoneNumber ?? "—"}</TableCell>
                </TableRow>
              ))}
            </TableBody>
          </Table>
          <p className="text-sm text-muted-foreground">Read live from the calendar provider.</p>
        </>
      )}
    </div>
  );
}

/** Adds 1–30 attendees at once, with the API's validation message beside each field. */
export function AddAttendeesForm({ callId }: { callId: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [drafts, setDrafts] = useState<AttendeeDraft[]>([emptyAttendee()]);
  const [added, setAdded] = useState<number | null>(null);
  const addAttendees = useMutation(
    trpc.meetings.addAttendees.mutationOptions({
      onSuccess: (data, variables) => {
        queryClient.setQueryData(trpc.meetings.listAttendees.queryKey({ entityId: callId }), data);
        setAdded(variables.attendees.length);
        setDrafts([emptyAttendee()]);
      },
    }),
  );
  // An attendee field the server refused (`attendees.1.email`) is shown under that field.
  const errors = formErrors(addAttendees.error, (path) => (path[0] === "attendees" && path.length === 3 ? { field: path.join(".") } : null));
  const fieldErrors = Object.keys(errors.fields).length;
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setAdded(null);
    addAttendees.mutate({
      entityId: callId,
      attendees: drafts.map((draft) => ({
        email: draft.email.trim(),
        ...(draft.name.trim() ? { name: draft.name.trim() } : {}),
        ...(draft.timeZone.trim() ? { timeZone: draft.timeZone.trim() } : {}),
        ...(draft.phoneNumber.trim() ? { phoneNumber: draft.phoneNumber.trim() } : {}),
        ...(draft.language.trim() ? { language: draft.language.trim() } : {}),
      })),
    });
  };
  const update = (index: number, patch: Partial<AttendeeDraft>) => setDrafts((rows) => rows.map((row, i) => (i === index ? { ...row, ...patch } : row)));

  return (
    <form onSubmit={submit} className="flex flex-col gap-3" aria-labelledby="add-attendees-heading" noValidate>
      <h3 id="add-attendees-heading">Add attendees</h3>
      {drafts.map((draft, index) => (
        <fieldset key={index} className="flex min-w-0 flex-col gap-3 rounded-lg border border-border p-3">
          <legend className="px-1 text-sm font-semibold">Attendee {index + 1}</legend>
          <div className="grid grid-cols-1 items-start gap-3 sm:grid-cols-2 lg:grid-cols-3">
            {FIELDS.map(({ field, label, type, placeholder }) => (
              <Field key={field} label={label} id={`attendee-${index}-${field}`} error={errors.fields[`attendees.${index}.${field}`]}>
                <Input type={type ?? "text"} value={draft[field]} placeholder={placeholder} onChange={(e) => update(index, { [field]: e.target.value })} />
              </Field>
            ))}
          </div>
          {drafts.length > 1 && (
            <div>
              <Button size="sm" onClick={() => setDrafts((rows) => rows.filter((_, i) => i !== index))}>
                Remove attendee {index + 1}
              </Button>
            </div>
          )}
        </fieldset>
      ))}
      <div className="flex flex-wrap items-center gap-2">
        <Button size="sm" disabled={drafts.length >= MAX_ATTENDEES} onClick={() => setDrafts((rows) => [...rows, emptyAttendee()])}>
          Another attendee
        </Button>
        <span className="text-sm text-muted-foreground">
          {drafts.length} of at most {MAX_ATTENDEES} at once
        </span>
        <Button type="submit" variant="primary" disabled={addAttendees.isPending}>
          {addAttendees.isPending ? "Adding…" : drafts.length > 1 ? `Add ${drafts.length} attendees` : "Add attendee"}
        </Button>
      </div>
      <div aria-live="polite">
        {added !== null && <Alert tone="success">Added. The list above is the provider&apos;s, read back after the change.</Alert>}
        {errors.message && fieldErrors === 0 && <Alert tone="error">{errors.message}</Alert>}
        {fieldErrors > 0 && (
          <p className="text-sm font-medium text-danger" role="alert">
            Fix the highlighted fields: nothing was added.
          </p>
        )}
      </div>
    </form>
  );
}
