"use client";

import { signOut } from "next-auth/react";
import { useState } from "react";
import { Button } from "./ui/button";

export function SignOutButton({ className, callbackUrl = "/sign-in" }: { className?: string; callbackUrl?: string }) {
  const [pending, setPending] = useState(false);
  return (
    <Button
      size="sm"
      className={className}
      disabled={pending}
      onClick={() => {
        setPending(true);
        void signOut({ callbackUrl });
      }}
    >
      {pending ? "Signing out…" : "Sign out"}
    </Button>
  );
}
