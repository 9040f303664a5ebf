import type { Metadata } from "next";
import { AuthCard } from "./_components/ui/auth-card";

export const metadata: Metadata = { title: "Page not found" };

/**
 * Any unknown address (and `notFound()` in a page): on the kit, with a way back. A plain link, not `next/link`: this
 * boundary's client code is counted in every route's first load.
 */
export default function NotFound() {
  return (
    <AuthCard>
      <h1>Page not found</h1>
      <p>There is nothing at this address. Check the link, or go back to the console.</p>
      <p>
        <a href="/">Open the console</a>
      </p>
    </AuthCard>
  );
}
