import { randomFillSync } from "node:crypto";
import { ulid } from "ulid";

const pool = new Uint8Array(4096);
let offset = pool.length;

/** Uniform in [0, 1) from a pooled buffer of OS randomness (refilled 4 KiB at a time). */
function pooledRandom(): number {
  if (offset >= pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  return pool[offset++]! / 0x100;
}

/**
 * A ULID (time-ordered, 80 random bits) for runs, events and batches. `ulid()` on its own asks the OS for one byte
 * per character: 26 calls per id, which made an intake of 1,000 events spend most of its time in randomBytes.
 */
export function newId(): string {
  return ulid(undefined, pooledRandom);
}
