"use client";

import { useState } from "react";
import { Button } from "./ui/button";

/**
 * next-auth's sign-out, without `next-auth/react` (its babel runtime alone weighs more than the shell): the CSRF token
 * from `/api/auth/csrf`, a form POST to `/api/auth/signout`, then a full navigation to `callbackUrl` — relative, so
 * the browser stays on the host it is on (next-auth's answer names NEXTAUTH_URL's host).
 */
async function signOut(callbackUrl: string) {
  const csrf = await fetch("/api/auth/csrf", { cache: "no-store" });
  const { csrfToken } = (await csrf.json()) as { csrfToken: string };
  const res = await fetch("/api/auth/signout", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams({ csrfToken, callbackUrl, json: "true" }),
  });
  if (!res.ok) throw new Error(`sign-out answered ${res.status}`);
  window.location.assign(callbackUrl);
}

export function SignOutButton({ className, callbackUrl = "/sign-in" }: { className?: string; callbackUrl?: string }) {
  const [pending, setPending] = useState(false);
  const [failed, setFailed] = useState(false);
  return (
    <Button
      size="sm"
      className={className}
      disabled={pending}
      onClick={() => {
        setPending(true);
        setFailed(false);
        signOut(callbackUrl).catch(() => {
          setPending(false);
          setFailed(true);
        });
      }}
    >
      {pending ? "Signing out…" : failed ? "Sign out failed — try again" : "Sign out"}
    </Button>
  );
}
