import { z } from "zod";

/**
 * The types of setting values. Every input is a trimmed, non-empty string (../env.ts drops empty ones); these parse
 * it, and their messages are the ones `ConfigError` lists ("PORT: must be a whole number").
 */

// ---- value types (every input is a trimmed, non-empty string) ----

export function wholeNumber(min: number, max: number) {
  return z
    .string()
    .regex(/^\d+$/, { error: "must be a whole number" })
    .transform(Number)
    .pipe(z.number().min(min, { error: `must be at least ${min}` }).max(max, { error: `must be at most ${max}` }));
}

export function positiveNumber(max: number) {
  return z
    .string()
    .regex(/^\d+(\.\d+)?$/, { error: "must be a positive number" })
    .transform(Number)
    .pipe(z.number().gt(0, { error: "must be more than 0" }).max(max, { error: `must be at most ${max}` }));
}

const TRUE_WORDS = ["1", "true", "on", "yes"];
const FALSE_WORDS = ["0", "false", "off", "no"];
export function flag() {
  return z
    .string()
    .transform((value) => value.toLowerCase())
    .refine((value) => TRUE_WORDS.includes(value) || FALSE_WORDS.includes(value), { error: "must be 1/true/on/yes or 0/false/off/no" })
    .transform((value) => TRUE_WORDS.includes(value));
}

export function httpUrl(options: { https?: boolean } = {}) {
  return z.string().refine(
    (value) => {
      try {
        const url = new URL(value);
        return options.https ? url.protocol === "https:" : url.protocol === "http:" || url.protocol === "https:";
      } catch {
        return false;
      }
    },
    { error: options.https ? "must be an https:// URL" : "must be an http(s):// URL" },
  );
}

/** Comma-separated http(s) origins (scheme, host, optional port; no path, query or credentials). */
export function httpOriginList() {
  return text().refine(
    (value) =>
      value
        .split(",")
        .map((entry) => entry.trim())
        .filter(Boolean)
        .every((entry) => {
          try {
            const url = new URL(entry);
            return (url.protocol === "http:" || url.protocol === "https:") && url.origin === entry.replace(/\/$/, "").toLowerCase();
          } catch {
            return false;
          }
        }),
    { error: "must be comma-separated http(s) origins such as https://media.example.com" },
  );
}

export function urlWithProtocols(protocols: string[], label: string) {
  return z.string().refine(
    (value) => {
      try {
        return protocols.includes(new URL(value).protocol);
      } catch {
        return false;
      }
    },
    { error: `must be a ${label} URL` },
  );
}

export function oneOf<const T extends readonly [string, ...string[]]>(values: T) {
  return z
    .string()
    .transform((value) => value.toLowerCase())
    .pipe(z.enum(values, { error: () => `must be one of ${values.join(", ")}` }));
}

export const text = () => z.string().max(4096, { error: "must be at most 4096 characters" });


/** Whether a raw value is one of the words `flag()` reads as true (for rules that read raw settings). */
export function isTrue(value: string | undefined): boolean {
  return TRUE_WORDS.includes((value ?? "").toLowerCase());
}
