"use client";

import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { Alert } from "../../_components/ui/alert";
import { Button } from "../../_components/ui/button";
import { Field } from "../../_components/ui/field";
import { Input } from "../../_components/ui/input";

/** Signed in as the invited address: one click joins. */
export function AcceptAsSignedIn({ token }: { token: string }) {
  const trpc = useTRPC();
  const accept = useMutation(
    trpc.invitations.accept.mutationOptions({
      onSuccess: (data) => window.location.assign(`/${encodeURIComponent(data.orgId)}`),
    }),
  );
  return (
    <>
      {accept.isError && <Alert tone="error">{errorMessage(accept.error)}</Alert>}
      <Button variant="primary" className="w-full" disabled={accept.isPending || accept.isSuccess} onClick={() => accept.mutate({ token })}>
        {accept.isPending || accept.isSuccess ? "Joining…" : "Accept invitation"}
      </Button>
    </>
  );
}

/**
 * No account for the invited address yet: the invitee chooses their own password, then is signed in with it. The form
 * is `method="post"` so a submit before hydration never puts the password into the URL.
 */
export function CreateAccountAndAccept({ token, email, oidcName, signInUrl }: { token: string; email: string; oidcName: string | null; signInUrl: string }) {
  const trpc = useTRPC();
  const [mismatch, setMismatch] = useState(false);
  const create = useMutation(trpc.invitations.acceptWithNewAccount.mutationOptions());

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    const password = String(form.get("password") ?? "");
    if (password !== String(form.get("confirm") ?? "")) {
      setMismatch(true);
      return;
    }
    setMismatch(false);
    const joined = await create.mutateAsync({ token, name: String(form.get("name") ?? ""), password }).catch(() => null);
    if (!joined) return;
    const result = await signIn("credentials", { email, password, redirect: false });
    window.location.assign(result && !result.error ? `/${encodeURIComponent(joined.orgId)}` : "/sign-in");
  }

  return (
    <>
      <form method="post" onSubmit={(event) => void onSubmit(event)} className="flex flex-col gap-3">
        <p className="text-sm text-muted-foreground">Create your account: choose a password (8 to 200 characters). Nobody else knows it.</p>
        <Field label="Your name" id="name">
          <Input name="name" autoComplete="name" maxLength={200} />
        </Field>
        <Field label="Password" id="password">
          <Input name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
        </Field>
        <Field label="Repeat the password" id="confirm" error={mismatch ? "The two passwords differ." : undefined}>
          <Input name="confirm" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
        </Field>
        {create.isError && <Alert tone="error">{errorMessage(create.error)}</Alert>}
        <Button variant="primary" type="submit" className="w-full" disabled={create.isPending || create.isSuccess}>
          {create.isPending || create.isSuccess ? "Creating your account…" : "Create account and join"}
        </Button>
      </form>
      {oidcName && (
        <p className="text-sm text-muted-foreground">
          Or <a href={signInUrl}>sign in with {oidcName}</a> as {email} to accept.
        </p>
      )}
    </>
  );
}
