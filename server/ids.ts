import { randomUUID } from "node:crypto";
import { ulid } from "ulid";

export type IdPrefix = "agent" | "call-sequence" | "call" | "prompt-ver" | "org" | "user" | "key" | "var" | "outcome" | "txn" | "invite";

/** Public identifiers are `<prefix>.<lowercase ULID>` (DESIGN §3). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}.${ulid().toLowerCase()}`;
}

export function newUuid(): string {
  return randomUUID();
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}.`) && id.length > prefix.length + 1;
}
