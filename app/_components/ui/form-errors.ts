import { TRPCClientError } from "@trpc/client";
import { errorMessage } from "@/server/trpc/client/react";

/** One refused input field as the server sends it in `details.issues` (zod's issues and `invalidField`'s alike). */
export type FieldIssue = { path: string; message: string };

/** Where a form shows an issue: one of its fields (by key) and/or words naming the place ("Line 2", "Step 3"). */
export type IssuePlace<F extends string> = { field?: F; label?: string };

export type FormErrors<F extends string> = {
  /** Each field's message (the first issue placed on it), for `<Field error={…}>`: beside the control, which is then
   * marked `aria-invalid` and described by it. */
  fields: Partial<Record<F, string>>;
  /** What the form says as a whole, never a field path: the issues no field took (with their place's words), a line
   * pointing at the marked fields, or — for a refusal that is not about fields — the server's message. Null: no error. */
  message: string | null;
};

/** The per-field issues of a refused call (`details.issues`), in the order the server sent them. */
export function fieldIssues(error: unknown): FieldIssue[] {
  if (!(error instanceof TRPCClientError)) return [];
  const issues = (error.data as { details?: { issues?: unknown } } | undefined)?.details?.issues;
  if (!Array.isArray(issues)) return [];
  return issues.filter((issue): issue is FieldIssue => typeof issue?.path === "string" && typeof issue?.message === "string");
}

/** `fields` as a list: an issue goes to the field whose key is its path or a path above it (`redactionPatterns` takes `redactionPatterns.0.pattern`). */
function placeByKeys<F extends string>(keys: readonly F[]) {
  return (path: readonly string[]): IssuePlace<F> | null => {
    const joined = path.join(".");
    const field = keys.find((key) => joined === key || joined.startsWith(`${key}.`));
    return field ? { field } : null;
  };
}

/** A service's message reads after the field's name ("is required", "must be http or https"): alone, a sentence. */
function sentence(text: string): string {
  const whole = text.startsWith("is ") ? `This ${text}` : text.charAt(0).toUpperCase() + text.slice(1);
  return /[.!?)]$/.test(whole) ? whole : `${whole}.`;
}

/**
 * A refused mutation, split for a form: the one place the console turns the server's field issues (paths such as
 * `emailFrom` or `redactionPatterns.0.pattern`) into messages beside their fields, so no form shows a raw path.
 * `fields`: the keys of the form's fields, or a function that places a path (split on dots) — on a field, with words
 * for where in it, or only words when no control shows it. Issues placed nowhere keep their message alone.
 */
export function formErrors<F extends string>(error: unknown, fields: readonly F[] | ((path: readonly string[]) => IssuePlace<F> | null)): FormErrors<F> {
  if (!error) return { fields: {}, message: null };
  const issues = fieldIssues(error);
  if (issues.length === 0) return { fields: {}, message: errorMessage(error) };
  const place = typeof fields === "function" ? fields : placeByKeys(fields);
  const byField: Partial<Record<F, string>> = {};
  const rest: string[] = [];
  for (const issue of issues) {
    const where = place(issue.path === "" ? [] : issue.path.split("."));
    const text = where?.label ? `${where.label}: ${sentence(issue.message).replace(/^This /, "this ")}` : sentence(issue.message);
    if (where?.field !== undefined) {
      if (!(where.field in byField)) byField[where.field] = text;
    } else rest.push(text);
  }
  const marked = Object.keys(byField).length;
  const pointer = marked === 0 ? null : marked === 1 ? "Nothing was saved: correct the marked field." : "Nothing was saved: correct the marked fields.";
  return { fields: byField, message: [pointer, ...rest].filter(Boolean).join(" ") };
}
