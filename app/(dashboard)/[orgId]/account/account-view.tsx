"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../../_components/ui/alert";
import { Button } from "../../../_components/ui/button";
import { Section } from "../../../_components/ui/card";
import { Field } from "../../../_components/ui/field";
import { formErrors } from "../../../_components/ui/form-errors";
import { Input } from "../../../_components/ui/input";
import { PageHeader } from "../../../_components/ui/page-header";
import { ErrorState, Loading } from "../../../_components/ui/states";

/** The signed-in person's account: sign-in method and, for password accounts, a password change. */
export function AccountView() {
  const trpc = useTRPC();
  const account = useQuery(trpc.account.get.queryOptions());
  const [mismatch, setMismatch] = useState(false);
  const [done, setDone] = useState(false);
  const change = useMutation(trpc.account.changePassword.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const newPassword = String(form.get("new-password") ?? "");
    if (newPassword !== String(form.get("confirm-password") ?? "")) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    const result = await change.mutateAsync({ currentPassword: String(form.get("current-password") ?? ""), newPassword }).catch(() => null);
    if (!result) return;
    // The change ended every session, this one too: sign in again with the new password.
    const again = await signIn("credentials", { email: result.email, password: newPassword, redirect: false });
    if (again && !again.error) setDone(true);
    else window.location.assign("/sign-in");
  }

  if (account.isPending) return <Loading />;
  if (account.isError) return <ErrorState error={account.error} retry={() => void account.refetch()} />;
  const me = account.data;
  const errors = formErrors(change.error, ["currentPassword", "newPassword"] as const);
  return (
    <>
      <PageHeader title="Account" description={`Signed in as ${me.email}${me.operator ? " (operator of this server)" : ""}.`} />
      <Section title="Password" description={me.hasPassword ? "Changing your password signs you out everywhere else." : undefined}>
        {!me.hasPassword ? (
          <p>You sign in with single sign-on: change your password at your identity provider.</p>
        ) : (
          <form method="post" onSubmit={(event) => void onSubmit(event)} className="flex max-w-md flex-col gap-3">
            <Field label="Current password" id="current-password" error={errors.fields.currentPassword}>
              <Input name="current-password" type="password" autoComplete="current-password" required maxLength={200} />
            </Field>
            <Field label="New password" id="new-password" hint="At least 8 characters." error={errors.fields.newPassword}>
              <Input name="new-password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
            </Field>
            <Field label="Repeat the new password" id="confirm-password" error={mismatch ? "The two new passwords differ." : undefined}>
              <Input name="confirm-password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
            </Field>
            {errors.message && <Alert tone="error">{errors.message}</Alert>}
            {done && <Alert tone="success">Your password was changed. Other sessions were signed out.</Alert>}
            <div>
              <Button variant="primary" type="submit" disabled={change.isPending}>
                {change.isPending ? "Changing…" : "Change password"}
              </Button>
            </div>
          </form>
        )}
      </Section>
    </>
  );
}
