import type { Metadata } from "next";
import Link from "next/link";
import { AuthCard } from "./_components/ui/auth-card";

export const metadata: Metadata = { title: "Page not found" };

/** Any unknown address (and `notFound()` in a page): on the kit, with a way back. */
export default function NotFound() {
  return (
    <AuthCard>
      <h1>Page not found</h1>
      <p>There is nothing at this address. Check the link, or go back to the console.</p>
      <p>
        <Link href="/">Open the console</Link>
      </p>
    </AuthCard>
  );
}
