import { decodeTime, isValid } from "ulid";
import { describe, expect, it } from "vitest";
import { hasPrefix, newId } from "@/server/ids";

describe("newId", () => {
  it("gives distinct prefixed lowercase ULIDs stamped with the current time, also past the random pool's refills", () => {
    const before = Date.now();
    // 5,000 ids draw 80,000 random characters: the 4 KiB pool is refilled ~20 times.
    const ids = Array.from({ length: 5000 }, () => newId("call"));
    const after = Date.now();
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) {
      expect(id).toMatch(/^call\.[0-9a-hjkmnp-tv-z]{26}$/);
      expect(hasPrefix(id, "call")).toBe(true);
      const ulid = id.slice("call.".length).toUpperCase();
      expect(isValid(ulid)).toBe(true);
      expect(decodeTime(ulid)).toBeGreaterThanOrEqual(before);
      expect(decodeTime(ulid)).toBeLessThanOrEqual(after);
    }
    // Every one of the 32 characters shows up in the random part, in roughly even shares (a stuck or biased
    // generator would not): 80,000 draws, 2,500 expected per character.
    const counts = new Map<string, number>();
    for (const id of ids) for (const char of id.slice(-16)) counts.set(char, (counts.get(char) ?? 0) + 1);
    expect(counts.size).toBe(32);
    for (const count of counts.values()) {
      expect(count).toBeGreaterThan(2000);
      expect(count).toBeLessThan(3000);
    }
  });
});
