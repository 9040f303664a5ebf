import { randomFillSync, randomUUID } from "node:crypto";
import { ulid } from "ulid";

export type IdPrefix = "agent" | "call-sequence" | "call" | "prompt-ver" | "org" | "user" | "key" | "var" | "outcome" | "txn" | "invite" | "message" | "test-case" | "test-run" | "test-result" | "test-call" | "transfer" | "number";

/**
 * The ULID's randomness, from the OS's crypto source drawn 4 KiB at a time: ulid's own generator asks the system for
 * one byte per character (16 calls per id, ~80 µs an id — most of the CPU of creating 1,000 sequences and their calls,
 * or of the runner's intake of 1,000 events).
 */
const randomPool = new Uint8Array(4096);
let randomOffset = randomPool.length;
function pooledRandom(): number {
  if (randomOffset >= randomPool.length) {
    randomFillSync(randomPool);
    randomOffset = 0;
  }
  return randomPool[randomOffset++]! / 0x100;
}

/** A ULID (time-ordered, 80 random bits, upper case) from the pooled randomness. */
export function newUlid(): string {
  return ulid(undefined, pooledRandom);
}

/** Public identifiers are `<prefix>.<lowercase ULID>` (DESIGN §3). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}.${newUlid().toLowerCase()}`;
}

export function newUuid(): string {
  return randomUUID();
}

export function hasPrefix(id: string, prefix: IdPrefix): boolean {
  return id.startsWith(`${prefix}.`) && id.length > prefix.length + 1;
}
