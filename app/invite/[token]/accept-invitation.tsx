"use client";

import { useMutation } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";

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
      {accept.isError && (
        <div className="alert alert-error" role="alert">
          {errorMessage(accept.error)}
        </div>
      )}
      <button type="button" className="btn btn-primary" style={{ width: "100%" }} disabled={accept.isPending || accept.isSuccess} onClick={() => accept.mutate({ token })}>
        {accept.isPending || accept.isSuccess ? "Joining…" : "Accept invitation"}
      </button>
    </>
  );
}

/** No account for the invited address yet: the invitee chooses their own password, then is signed in with it. */
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
      <form onSubmit={(event) => void onSubmit(event)}>
        <p className="hint">Create your account: choose a password (8 to 200 characters). Nobody else knows it.</p>
        <div className="field">
          <label htmlFor="name">Your name</label>
          <input id="name" name="name" autoComplete="name" maxLength={200} />
        </div>
        <div className="field">
          <label htmlFor="password">Password</label>
          <input id="password" name="password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
        </div>
        <div className="field">
          <label htmlFor="confirm">Repeat the password</label>
          <input id="confirm" name="confirm" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
        </div>
        {mismatch && (
          <div className="alert alert-error" role="alert">
            The two passwords differ.
          </div>
        )}
        {create.isError && (
          <div className="alert alert-error" role="alert">
            {errorMessage(create.error)}
          </div>
        )}
        <button className="btn btn-primary" type="submit" style={{ width: "100%" }} disabled={create.isPending || create.isSuccess}>
          {create.isPending || create.isSuccess ? "Creating your account…" : "Create account and join"}
        </button>
      </form>
      {oidcName && (
        <p className="hint">
          Or <a href={signInUrl}>sign in with {oidcName}</a> as {email} to accept.
        </p>
      )}
    </>
  );
}
