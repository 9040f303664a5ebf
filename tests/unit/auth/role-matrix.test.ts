import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";

/**
 * docs/security.md's role matrix is what the code enforces: every procedure file's guard (requireRole, orgProcedure,
 * sessionProcedure, publicProcedure, jobsProcedure) read from its source, against the table's rows.
 */
function guardOf(source: string): string {
  const text = source.replace(/\s+/g, " ");
  const role = /requireRole\("([a-z]+)"(, \{ sessionOnly: true \})?\)/.exec(text);
  if (role) return `${role[1]}${role[2] ? "-session" : ""}`;
  if (text.includes("= orgProcedure")) return "member";
  if (text.includes("= sessionProcedure")) return "signed-in";
  if (text.includes("= publicProcedure")) return "public";
  if (text.includes("= jobsProcedure")) return "jobs";
  return "unknown";
}

function enforced(): Record<string, string> {
  const root = path.resolve("server/routers");
  const guards: Record<string, string> = {};
  for (const folder of readdirSync(root)) {
    if (!folder.match(/^[a-z-]+$/)) continue;
    for (const file of readdirSync(path.join(root, folder))) {
      if (!file.endsWith(".procedure.ts")) continue;
      guards[`${folder}/${file.replace(".procedure.ts", "")}`] = guardOf(readFileSync(path.join(root, folder, file), "utf8"));
    }
  }
  return guards;
}

function documented(): Record<string, string> {
  const text = readFileSync(path.resolve("docs/security.md"), "utf8");
  const section = text.slice(text.indexOf("## Roles"), text.indexOf("\n## ", text.indexOf("## Roles") + 3));
  const guards: Record<string, string> = {};
  for (const line of section.split("\n")) {
    const cells = line.split("|").map((cell) => cell.trim());
    const key = /^`([a-z-]+)`$/.exec(cells[2] ?? "")?.[1];
    if (!key || cells.length < 6) continue;
    for (const procedure of cells[5]!.matchAll(/`([a-z-]+\/[a-z-]+)`/g)) guards[procedure[1]!] = key;
  }
  return guards;
}

describe("docs/security.md role matrix", () => {
  it("lists every procedure with the guard its file applies", () => {
    const code = enforced();
    expect(Object.keys(code).length).toBeGreaterThan(80);
    expect(Object.values(code)).not.toContain("unknown");
    expect(documented()).toEqual(code);
  });
});
