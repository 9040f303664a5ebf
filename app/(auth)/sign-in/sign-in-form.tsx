"use client";

import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { signInErrorText } from "@/server/auth/sign-in-errors";

type Props = { credentials: boolean; oidc: { id: string; name: string } | null; callbackUrl: string };

export function SignInForm({ credentials, oidc, callbackUrl }: Props) {
  const [pending, setPending] = useState<"credentials" | "oidc" | null>(null);
  const [error, setError] = useState<string | null>(null);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setPending("credentials");
    setError(null);
    const result = await signIn("credentials", {
      email: String(form.get("email") ?? ""),
      password: String(form.get("password") ?? ""),
      redirect: false,
      callbackUrl,
    });
    if (!result || result.error) {
      setPending(null);
      setError(signInErrorText(result?.error ?? "unknown"));
      return;
    }
    // A full navigation, so the server components see the new session cookie.
    window.location.assign(callbackUrl);
  }

  return (
    <>
      {credentials && (
        <form onSubmit={onSubmit} noValidate aria-describedby={error ? "sign-in-error" : undefined}>
          {error && (
            <div id="sign-in-error" className="alert alert-error" role="alert">
              {error}
            </div>
          )}
          <div className="field">
            <label htmlFor="email">Email</label>
            <input id="email" name="email" type="email" autoComplete="username" required aria-invalid={!!error} />
          </div>
          <div className="field">
            <label htmlFor="password">Password</label>
            <input id="password" name="password" type="password" autoComplete="current-password" required aria-invalid={!!error} />
          </div>
          <button className="btn btn-primary" type="submit" disabled={pending !== null} style={{ width: "100%" }}>
            {pending === "credentials" ? "Signing in…" : "Sign in"}
          </button>
        </form>
      )}
      {credentials && oidc && <div className="divider">or</div>}
      {oidc && (
        <button
          type="button"
          className="btn"
          style={{ width: "100%" }}
          disabled={pending !== null}
          onClick={() => {
            setPending("oidc");
            void signIn(oidc.id, { callbackUrl });
          }}
        >
          {pending === "oidc" ? "Redirecting…" : `Sign in with ${oidc.name}`}
        </button>
      )}
    </>
  );
}
