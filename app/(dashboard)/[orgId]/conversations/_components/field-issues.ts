import { TRPCClientError } from "@trpc/client";

/**
 * The per-field messages of an INVALID_REQUEST answer (the API's own validation, `details.issues` with paths such as
 * `attendees.0.email`), keyed by path, so a form can show each message beside its field.
 */
export function fieldIssues(error: unknown): Record<string, string> {
  if (!(error instanceof TRPCClientError)) return {};
  const details = (error.data as { details?: { issues?: Array<{ path: string; message: string }> } } | undefined)?.details;
  const out: Record<string, string> = {};
  for (const issue of details?.issues ?? []) if (!(issue.path in out)) out[issue.path] = issue.message;
  return out;
}
