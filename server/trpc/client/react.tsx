"use client";

import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, TRPCClientError } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { useState, type ReactNode } from "react";
import { MAX_TRPC_BATCH_SIZE } from "@/server/schemas/limits";
import type { AppRouter } from "../root";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

function makeQueryClient() {
  return new QueryClient({
    defaultOptions: {
      queries: {
        staleTime: 15_000,
        refetchOnWindowFocus: false,
        // Permission and validation errors do not get better by retrying.
        retry: (failureCount, error) => {
          const status = error instanceof TRPCClientError ? (error.data as { httpStatus?: number } | undefined)?.httpStatus : undefined;
          return (status === undefined || status >= 500) && failureCount < 2;
        },
      },
    },
  });
}

/**
 * The dashboard's tRPC client. Every request names the organization of the page (`x-org-id`); the server checks the
 * signed-in person's membership and role in it on every call. Mount it with `key={orgId}`: a new organization gets a
 * new cache, so one organization's data never shows under another's name.
 */
export function TRPCReactProvider({ orgId, children }: { orgId: string | null; children: ReactNode }) {
  const [queryClient] = useState(makeQueryClient);
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: "/api/trpc",
          headers: () => (orgId ? { "x-org-id": orgId } : {}),
          // The server refuses larger batches (400) and limits requests per second (429).
          maxItems: MAX_TRPC_BATCH_SIZE,
          fetch: fetchRetryingRateLimited,
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/**
 * `fetch`, waiting out a 429 (Retry-After, at most 3 s, with jitter) and sending the request again, up to 3 times: a
 * refused request never ran, so sending it again is safe, and a busy page (an import, many tabs) slows down instead
 * of failing.
 */
async function fetchRetryingRateLimited(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
  for (let attempt = 0; ; attempt++) {
    const response = await fetch(input, init);
    if (response.status !== 429 || attempt >= 3 || init?.signal?.aborted) return response;
    const seconds = Math.min(3, Math.max(1, Number(response.headers.get("retry-after")) || 1));
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000 * (0.5 + Math.random() / 2)));
  }
}

/** The message to show for a failed call: our AppError message (same text as the REST API), or a generic one. */
export function errorMessage(error: unknown): string {
  if (error instanceof TRPCClientError) {
    const data = error.data as { message?: string; appCode?: string } | undefined;
    return data?.message ?? error.message;
  }
  if (error instanceof Error) return error.message;
  return "Something went wrong.";
}

export function errorCode(error: unknown): string | null {
  if (error instanceof TRPCClientError) return (error.data as { appCode?: string } | undefined)?.appCode ?? null;
  return null;
}
