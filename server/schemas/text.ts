import { z } from "zod";
import { MAX_ID_LENGTH } from "./limits";

/*
 * Text the service refuses in every string it is sent, keys included: U+0000 (PostgreSQL cannot store it in text or
 * jsonb) and UTF-16 surrogates without their pair (not Unicode text: jsonb refuses them, UTF-8 encoders replace them).
 * The tRPC text guard (server/trpc/init.ts) applies this to every procedure's raw input; bulk contacts are checked
 * one by one by the enrollment service instead, so one bad contact is rejected alone.
 */
// eslint-disable-next-line no-control-regex -- U+0000 is exactly what this refuses.
const UNSAFE_TEXT = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const UNSAFE_TEXT_GLOBAL = new RegExp(UNSAFE_TEXT.source, "g");

export const UNSAFE_TEXT_MESSAGE = "must not contain NUL characters (\\u0000) or unpaired UTF-16 surrogates";

export function isSafeText(value: string): boolean {
  return !UNSAFE_TEXT.test(value);
}

/** What `isSafeText` refuses, replaced by U+FFFD: for quoting a refused value back (messages, `rejected[].phoneNumber`). */
export function toSafeText(value: string): string {
  return value.replace(UNSAFE_TEXT_GLOBAL, "\ufffd");
}

/** A key as it appears in an error path: safe, and short enough for a message. */
function pathSegment(key: string): string {
  const safe = toSafeText(key);
  return safe.length > 64 ? `${safe.slice(0, 64)}…` : safe;
}

export type RefusedInput = { path: string; message: string };

/**
 * The first value in a raw input that no procedure accepts, or null: a string — object keys included — that
 * `isSafeText` refuses, or a property named `__proto__` (JSON allows it, but JavaScript objects cannot keep it as
 * data: zod would drop it without a word). Iterative, so a deeply nested body cannot overflow the stack.
 * `perItemKeys`: top-level properties whose items the service validates one by one; their text is left to it
 * (one bad contact is rejected alone), `__proto__` keys are refused there too.
 */
export function findRefusedInput(value: unknown, options: { perItemKeys?: readonly string[] } = {}): RefusedInput | null {
  type Node = { value: unknown; key: string | null; parent: Node | null; checkText: boolean };
  const pathOf = (node: Node, lastKey?: string) => {
    const keys = lastKey === undefined ? [] : [lastKey];
    for (let at: Node | null = node; at && at.key !== null; at = at.parent) keys.unshift(at.key);
    return keys.length ? keys.join(".") : "input";
  };
  const perItem = new Set(options.perItemKeys ?? []);
  const stack: Node[] = [{ value, key: null, parent: null, checkText: true }];
  while (stack.length > 0) {
    const node = stack.pop()!;
    const current = node.value;
    if (typeof current === "string") {
      if (node.checkText && !isSafeText(current)) return { path: pathOf(node), message: UNSAFE_TEXT_MESSAGE };
    } else if (Array.isArray(current)) {
      for (let index = current.length - 1; index >= 0; index -= 1) {
        stack.push({ value: current[index], key: String(index), parent: node, checkText: node.checkText });
      }
    } else if (current !== null && typeof current === "object") {
      const entries = Object.entries(current as Record<string, unknown>);
      for (let index = entries.length - 1; index >= 0; index -= 1) {
        const [key, child] = entries[index]!;
        if (key === "__proto__") return { path: pathOf(node, key), message: "__proto__ is not accepted as a property name" };
        if (node.checkText && !isSafeText(key)) return { path: pathOf(node, pathSegment(key)), message: UNSAFE_TEXT_MESSAGE };
        const checkText = node.checkText && !(node.parent === null && perItem.has(key));
        stack.push({ value: child, key, parent: node, checkText });
      }
    }
  }
  return null;
}

/** A string of at most `max` characters (the OpenAPI document shows `maxLength`). */
export function boundedText(max: number) {
  return z.string().max(max, `must be at most ${max.toLocaleString("en-US")} characters`);
}

/** An identifier sent back by the client (path parameter, body or query field): 1 to MAX_ID_LENGTH characters. */
export function idText() {
  return z.string().min(1, "must not be empty").max(MAX_ID_LENGTH, `must be at most ${MAX_ID_LENGTH} characters`);
}
