"use client";

import { useMutation, useQuery } from "@tanstack/react-query";
import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { errorMessage, useTRPC } from "@/server/trpc/client/react";
import { ErrorState, Loading, PageHeader } from "../../../_components/states";

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
  return (
    <>
      <PageHeader title="Account" description={`Signed in as ${me.email}${me.operator ? " (operator of this server)" : ""}.`} />
      <section className="panel" aria-labelledby="change-password">
        <h2 id="change-password" style={{ marginTop: 0 }}>
          Password
        </h2>
        {!me.hasPassword ? (
          <p>You sign in with single sign-on: change your password at your identity provider.</p>
        ) : (
          <form onSubmit={(event) => void onSubmit(event)} style={{ maxWidth: 420 }}>
            <p className="hint">Changing your password signs you out everywhere else.</p>
            <div className="field">
              <label htmlFor="current-password">Current password</label>
              <input id="current-password" name="current-password" type="password" autoComplete="current-password" required maxLength={200} />
            </div>
            <div className="field">
              <label htmlFor="new-password">New password</label>
              <input id="new-password" name="new-password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
            </div>
            <div className="field">
              <label htmlFor="confirm-password">Repeat the new password</label>
              <input id="confirm-password" name="confirm-password" type="password" autoComplete="new-password" required minLength={8} maxLength={200} />
            </div>
            {mismatch && (
              <div className="alert alert-error" role="alert">
                The two new passwords differ.
              </div>
            )}
            {change.isError && (
              <div className="alert alert-error" role="alert">
                {errorMessage(change.error)}
              </div>
            )}
            {done && (
              <div className="alert alert-ok" role="status">
                Your password was changed. Other sessions were signed out.
              </div>
            )}
            <button className="btn btn-primary" type="submit" disabled={change.isPending}>
              {change.isPending ? "Changing…" : "Change password"}
            </button>
          </form>
        )}
      </section>
    </>
  );
}
