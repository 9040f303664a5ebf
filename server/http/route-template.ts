import { existsSync, readdirSync } from "node:fs";
import path from "node:path";

/**
 * The route template of a request outside `/api/v1` (whose handler names its own, see api-v1.ts), for log lines and
 * the `route` label of `http_request_duration_seconds`: `/{orgId}/agents/{agentId}`, never the raw path, so neither
 * IDs nor query strings reach logs or metric labels and the label set stays bounded.
 *
 * Pages and route handlers are read from the `app/` directory once (route groups dropped, `[param]` → `{param}`);
 * unknown paths are `{unmatched}`.
 */

type Template = { template: string; pattern: RegExp; staticSegments: number; segments: number };

const FIXED: Array<[RegExp, string]> = [
  [/^\/_next\/static\//, "/_next/static/{file}"],
  [/^\/_next\//, "/_next/{internal}"],
  [/^\/api\/trpc\//, "/api/trpc/{procedures}"],
  [/^\/api\/recordings\//, "/api/recordings/{key}"],
];

function toTemplate(segments: string[]): Template {
  const parts: string[] = [];
  const regex: string[] = [];
  let staticSegments = 0;
  for (const segment of segments) {
    const optionalCatchAll = /^\[\[\.\.\.(.+)\]\]$/.exec(segment);
    const catchAll = /^\[\.\.\.(.+)\]$/.exec(segment);
    const dynamic = /^\[(.+)\]$/.exec(segment);
    if (optionalCatchAll) {
      parts.push(`{...${optionalCatchAll[1]}}`);
      regex.push("(?:/.*)?");
    } else if (catchAll) {
      parts.push(`{...${catchAll[1]}}`);
      regex.push("/.+");
    } else if (dynamic) {
      parts.push(`{${dynamic[1]}}`);
      regex.push("/[^/]+");
    } else {
      parts.push(segment);
      regex.push(`/${segment.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`);
      staticSegments++;
    }
  }
  return { template: `/${parts.join("/")}`, pattern: new RegExp(`^${regex.join("") || "/"}/?$`), staticSegments, segments: segments.length };
}

function scanAppDirectory(dir: string, segments: string[], out: Template[]) {
  let entries: import("node:fs").Dirent[];
  try {
    entries = readdirSync(dir, { withFileTypes: true });
  } catch {
    return;
  }
  if (entries.some((entry) => entry.isFile() && /^(page|route)\.(tsx?|jsx?)$/.test(entry.name))) out.push(toTemplate(segments));
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith("_") || entry.name.startsWith("@")) continue;
    // Route groups "(dashboard)" are not part of the URL.
    const next = /^\(.+\)$/.test(entry.name) ? segments : [...segments, entry.name];
    scanAppDirectory(path.join(dir, entry.name), next, out);
  }
}

let templates: Template[] | undefined;

function appTemplates(): Template[] {
  if (templates) return templates;
  const found: Template[] = [];
  const appDir = path.resolve("app");
  if (existsSync(appDir)) scanAppDirectory(appDir, [], found);
  // Most specific first: more static segments, then more segments.
  templates = found.sort((a, b) => b.staticSegments - a.staticSegments || b.segments - a.segments);
  return templates;
}

export function routeTemplateOf(pathname: string): string {
  for (const [pattern, template] of FIXED) if (pattern.test(pathname)) return template;
  const match = appTemplates().find((candidate) => candidate.pattern.test(pathname));
  return match ? match.template : "{unmatched}";
}
