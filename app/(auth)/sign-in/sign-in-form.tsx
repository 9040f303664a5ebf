"use client";

import { signIn } from "next-auth/react";
import { useState, type FormEvent } from "react";
import { signInErrorText } from "@/server/auth/sign-in-errors";
import { Alert } from "../../_components/ui/alert";
import { Divider } from "../../_components/ui/auth-card";
import { Button } from "../../_components/ui/button";
import { Field } from "../../_components/ui/field";
import { Input } from "../../_components/ui/input";

type Props = { credentials: boolean; oidc: { id: string; name: string } | null; callbackUrl: string };

/**
 * The form is `method="post"`: submitted before the page's scripts have loaded (slow device, a password manager's
 * auto-submit), the password goes in a request body, never into the URL (browser history, server and proxy logs).
 */
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
        <form method="post" onSubmit={onSubmit} noValidate aria-describedby={error ? "sign-in-error" : undefined} className="flex flex-col gap-3">
          {error && (
            <Alert tone="error" id="sign-in-error">
              {error}
            </Alert>
          )}
          <Field label="Email" id="email">
            <Input name="email" type="email" autoComplete="username" required aria-invalid={Boolean(error) || undefined} />
          </Field>
          <Field label="Password" id="password">
            <Input name="password" type="password" autoComplete="current-password" required aria-invalid={Boolean(error) || undefined} />
          </Field>
          <Button variant="primary" type="submit" disabled={pending !== null} className="w-full">
            {pending === "credentials" ? "Signing in…" : "Sign in"}
          </Button>
        </form>
      )}
      {credentials && oidc && <Divider>or</Divider>}
      {oidc && (
        <Button
          className="w-full"
          disabled={pending !== null}
          onClick={() => {
            setPending("oidc");
            void signIn(oidc.id, { callbackUrl });
          }}
        >
          {pending === "oidc" ? "Redirecting…" : `Sign in with ${oidc.name}`}
        </Button>
      )}
    </>
  );
}
