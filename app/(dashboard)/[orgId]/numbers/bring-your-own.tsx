"use client";

import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field, FieldRow } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { formatPhoneNumber } from "../../../_components/ui/format";
import { Input } from "../../../_components/ui/input";
import { toast } from "../../../_components/ui/toast";
import { ValidationProgress, type StartedValidation } from "./validation-progress";

/** A number of the platform's carrier account that nobody owns: claimed at once (its webhooks pointed here). */
function ClaimPlatformNumber() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [phoneNumber, setPhoneNumber] = useState("");
  const claim = useMutation(
    trpc.numbers.acquire.mutationOptions({
      onSuccess: (data) => {
        toast({ title: `${formatPhoneNumber(data.number.phoneNumber)} is yours` });
        setPhoneNumber("");
        void queryClient.invalidateQueries({ queryKey: trpc.numbers.pathKey() });
      },
    }),
  );
  const errors = formErrors(claim.error, ["phoneNumber"] as const);
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    claim.mutate({ phoneNumber: phoneNumber.trim(), source: "platform-account" });
  }
  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-2" aria-label="Add a number of the platform account">
      <h3 className="font-semibold">A number already in the platform account</h3>
      <div className="flex flex-wrap items-end gap-2">
        <Field label="Phone number" id="claim-phone" hint="With the country code, e.g. +1 212 555 0142." error={errors.fields.phoneNumber} className="w-full sm:w-72">
          <Input value={phoneNumber} onChange={(e) => setPhoneNumber(e.target.value)} maxLength={64} />
        </Field>
        <Button type="submit" disabled={claim.isPending || !phoneNumber.trim()}>
          {claim.isPending ? "Adding…" : "Add to my numbers"}
        </Button>
      </div>
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
    </form>
  );
}

/** A number the organization owns elsewhere, as outbound caller ID: proved by the carrier's validation call. */
function ValidateCallerId() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [phoneNumber, setPhoneNumber] = useState("");
  const [friendlyName, setFriendlyName] = useState("");
  const [started, setStarted] = useState<StartedValidation | null>(null);
  const start = useMutation(
    trpc.numbers.startCallerIdValidation.mutationOptions({
      onSuccess: (data) => {
        setStarted({ numberId: data.number.numberId, phoneNumber: data.number.phoneNumber, validationCode: data.validationCode });
        setPhoneNumber("");
        setFriendlyName("");
        void queryClient.invalidateQueries({ queryKey: trpc.numbers.list.queryKey() });
      },
    }),
  );
  const errors = formErrors(start.error, ["phoneNumber", "friendlyName"] as const);
  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setStarted(null);
    start.mutate({ phoneNumber: phoneNumber.trim(), friendlyName: friendlyName.trim() || undefined });
  }
  return (
    <form onSubmit={onSubmit} className="flex flex-col gap-2" aria-label="Verify your own number as caller ID">
      <h3 className="font-semibold">Your own number, as caller ID</h3>
      <p className="text-sm text-muted-foreground">
        The carrier calls the number; whoever answers enters the code shown here. A verified caller ID places calls only: it sends no SMS and calls to
        it do not reach this app.
      </p>
      <FieldRow>
        <Field label="Number to verify" id="verify-phone" error={errors.fields.phoneNumber}>
          <Input value={phoneNumber} onChange={(e) => setPhoneNumber(e.target.value)} maxLength={64} placeholder="+1 415 555 0123" />
        </Field>
        <Field label="Name (optional)" id="verify-name" error={errors.fields.friendlyName}>
          <Input value={friendlyName} onChange={(e) => setFriendlyName(e.target.value)} maxLength={200} placeholder="Main office" />
        </Field>
      </FieldRow>
      <div>
        <Button type="submit" disabled={start.isPending || !phoneNumber.trim()}>
          {start.isPending ? "Calling…" : "Call it with a code"}
        </Button>
      </div>
      {errors.message && <Alert tone="error">{errors.message}</Alert>}
      {started && <ValidationProgress validation={started} />}
    </form>
  );
}

export function BringYourOwn() {
  return (
    <Section title="Bring your own number">
      <div className="flex flex-col gap-6">
        <ClaimPlatformNumber />
        <ValidateCallerId />
      </div>
    </Section>
  );
}
