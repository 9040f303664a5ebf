import { chmodSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { firstUntraversableDirectory } from "@/db/embedded";

describe("embedded PostgreSQL: directories the postgres user must enter", () => {
  const made: string[] = [];
  afterEach(() => {
    for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it("names the 0700 parent (as mktemp -d makes) of a checkout, and nothing once it is opened", () => {
    const parent = mkdtempSync(path.join(os.tmpdir(), "embedded-access-"));
    made.push(parent);
    const checkout = path.join(parent, "fresh", "app");
    mkdirSync(checkout, { recursive: true, mode: 0o755 });
    chmodSync(parent, 0o700);
    expect(firstUntraversableDirectory(checkout)).toBe(parent);
    chmodSync(parent, 0o711);
    expect(firstUntraversableDirectory(checkout)).toBeNull();
  });
});
