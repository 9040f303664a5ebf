"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { errorCode, errorMessage, useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../../_components/ui/alert";
import { CheckboxField } from "../../../../_components/ui/checkbox";
import { ConfirmButton } from "../../../../_components/ui/confirm-button";
import { Field } from "../../../../_components/ui/field";
import { Textarea } from "../../../../_components/ui/input";

/** Cancels the meeting at the provider, with a reason sent to the attendees. */
export function CancelMeetingForm({ callId, onCancelled }: { callId: string; onCancelled: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [reason, setReason] = useState("");
  const [cancelSubsequent, setCancelSubsequent] = useState(false);
  const cancel = useMutation(
    trpc.meetings.cancel.mutationOptions({
      onSuccess: () => {
        onCancelled();
        void queryClient.invalidateQueries({ queryKey: trpc.meetings.state.queryKey({ entityId: callId }) });
      },
    }),
  );
  return (
    <div className="flex flex-col gap-3">
      <h3>Cancel the meeting</h3>
      <Field label="Reason (sent to the provider and the attendees)" id="cancel-reason">
        <Textarea value={reason} maxLength={1000} className="min-h-18" onChange={(e) => setReason(e.target.value)} />
      </Field>
      <CheckboxField
        id="cancel-subsequent"
        label="Also cancel later occurrences (recurring bookings)"
        checked={cancelSubsequent}
        onCheckedChange={(checked) => setCancelSubsequent(checked === true)}
      />
      <div>
        <ConfirmButton
          label="Cancel meeting"
          title="Cancel this meeting?"
          confirmLabel="Cancel meeting"
          size="md"
          disabled={cancel.isPending}
          onConfirm={() =>
            cancel.mutate({ entityId: callId, ...(reason.trim() ? { cancellationReason: reason.trim() } : {}), ...(cancelSubsequent ? { cancelSubsequentBookings: true } : {}) })
          }
        >
          <p>The calendar provider cancels it and notifies the attendees. This cannot be undone here.</p>
        </ConfirmButton>
      </div>
      {cancel.isError && (
        <Alert tone="error">
          {errorCode(cancel.error) === "PROVIDER_UNAVAILABLE" ? "The calendar provider is unavailable; nothing was changed. " : ""}
          {errorMessage(cancel.error)}
        </Alert>
      )}
    </div>
  );
}
