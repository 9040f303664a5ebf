import type { ZodError } from "zod";

/**
 * How a failed input validation is told to the client, wherever it is checked (tRPC's error formatter for `/api/v1`
 * and the console, and the query parameters of the other routes, server/http/query-params.ts): the message names the
 * field(s), `issues` lists them for `details`.
 */
export function describeZodError(error: ZodError): string {
  const parts = error.issues.slice(0, 5).map((issue) => {
    const field = issue.path.length ? issue.path.join(".") : "body";
    if (issue.code === "invalid_type" && issue.input === undefined) return `${field}: is required`;
    return `${field}: ${issue.message}`;
  });
  return `Invalid request: ${parts.join("; ")}`;
}

export function zodIssuesOf(error: ZodError): Array<{ path: string; message: string }> {
  return error.issues.map((issue) => ({ path: issue.path.join("."), message: issue.message }));
}
