"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";

export function SignOutButton({ className = "btn", callbackUrl = "/sign-in" }: { className?: string; callbackUrl?: string }) {
  const [pending, setPending] = useState(false);
  return (
    <button
      type="button"
      className={className}
      disabled={pending}
      onClick={() => {
        setPending(true);
        void signOut({ callbackUrl });
      }}
    >
      {pending ? "Signing out…" : "Sign out"}
    </button>
  );
}
