/**
 * First-load JS per console route, read from the production build (`npm run build` first): the JS a browser must
 * fetch before a route is interactive — the shared runtime chunks (`rootMainFiles`) plus every chunk the route's
 * layouts and page import statically (the `entryJSFiles` of its client-reference manifest). Chunks loaded on demand
 * (`next/dynamic`, `import()`: the credits chart, papaparse) are not counted. Sizes are gzip (level 9) of the files.
 *
 * Usage: `npm run bench:first-load-js` (add `-- --check` to exit 1 when a route is over the 200 kB goal).
 * Writes bench/results/first-load-js.json.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import path from "node:path";
import vm from "node:vm";
import { gzipSync } from "node:zlib";

const GOAL_KB = 200;
const root = path.resolve(process.argv.find((a) => a.startsWith("--dir="))?.slice(6) ?? ".next");

function findManifests(dir: string): string[] {
  const found: string[] = [];
  for (const entry of readdirSync(dir)) {
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) found.push(...findManifests(full));
    else if (entry === "page_client-reference-manifest.js") found.push(full);
  }
  return found;
}

function routeName(manifestKey: string): string {
  const route = manifestKey
    .replace(/\/page$/, "")
    .split("/")
    .filter((part) => part && !/^\(.*\)$/.test(part))
    .join("/");
  return `/${route}`;
}

const gzipCache = new Map<string, { raw: number; gzip: number }>();
function sizeOf(file: string) {
  let size = gzipCache.get(file);
  if (!size) {
    const content = readFileSync(path.join(root, file));
    size = { raw: content.length, gzip: gzipSync(content, { level: 9 }).length };
    gzipCache.set(file, size);
  }
  return size;
}

function main() {
  if (!existsSync(path.join(root, "build-manifest.json"))) {
    console.error(`No build in ${root}: run \`npm run build\` first.`);
    process.exit(2);
  }
  const buildManifest = JSON.parse(readFileSync(path.join(root, "build-manifest.json"), "utf8")) as { rootMainFiles: string[] };
  const shared = buildManifest.rootMainFiles;
  const rows: Array<{ route: string; files: number; rawKb: number; gzipKb: number; routeOnlyGzipKb: number }> = [];

  for (const file of findManifests(path.join(root, "server/app"))) {
    const sandbox = { globalThis: {} as Record<string, unknown> };
    vm.runInNewContext(readFileSync(file, "utf8"), sandbox);
    const manifests = (sandbox.globalThis.__RSC_MANIFEST ?? {}) as Record<string, { entryJSFiles?: Record<string, string[]> }>;
    for (const [key, manifest] of Object.entries(manifests)) {
      const entryFiles = Object.values(manifest.entryJSFiles ?? {}).flat();
      const files = [...new Set([...shared, ...entryFiles])];
      const routeOnly = files.filter((f) => !shared.includes(f));
      const total = files.reduce((acc, f) => ({ raw: acc.raw + sizeOf(f).raw, gzip: acc.gzip + sizeOf(f).gzip }), { raw: 0, gzip: 0 });
      rows.push({
        route: routeName(key),
        files: files.length,
        rawKb: Math.round(total.raw / 102.4) / 10,
        gzipKb: Math.round(total.gzip / 102.4) / 10,
        routeOnlyGzipKb: Math.round(routeOnly.reduce((sum, f) => sum + sizeOf(f).gzip, 0) / 102.4) / 10,
      });
    }
  }
  rows.sort((a, b) => a.route.localeCompare(b.route));
  const sharedGzipKb = Math.round(shared.reduce((sum, f) => sum + sizeOf(f).gzip, 0) / 102.4) / 10;

  console.log(`First-load JS per route (gzip), goal ≤ ${GOAL_KB} kB. Shared by all: ${sharedGzipKb} kB.\n`);
  console.log(`${"route".padEnd(44)} ${"gzip kB".padStart(8)} ${"route-only".padStart(10)} ${"raw kB".padStart(8)}  files`);
  for (const row of rows) {
    const flag = row.gzipKb > GOAL_KB ? "  OVER GOAL" : "";
    console.log(`${row.route.padEnd(44)} ${String(row.gzipKb).padStart(8)} ${String(row.routeOnlyGzipKb).padStart(10)} ${String(row.rawKb).padStart(8)}  ${row.files}${flag}`);
  }
  const over = rows.filter((row) => row.gzipKb > GOAL_KB);
  console.log(`\nLargest: ${Math.max(...rows.map((r) => r.gzipKb))} kB; routes over the goal: ${over.length}.`);
  mkdirSync(path.resolve("bench/results"), { recursive: true });
  writeFileSync(path.resolve("bench/results/first-load-js.json"), JSON.stringify({ goalKb: GOAL_KB, sharedGzipKb, routes: rows }, null, 2));
  if (process.argv.includes("--check") && over.length > 0) process.exit(1);
}

main();
