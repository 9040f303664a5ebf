import { readFile } from "node:fs/promises";
import path from "node:path";

const FILES: Record<string, string> = {
  "swagger-ui.css": "text/css; charset=utf-8",
  "swagger-ui-bundle.js": "application/javascript; charset=utf-8",
};

const INIT_SCRIPT = `window.ui = SwaggerUIBundle({ url: "/api/v1/openapi.json", dom_id: "#swagger-ui", deepLinking: true, persistAuthorization: false });`;

export async function GET(_req: Request, { params }: { params: Promise<{ file: string }> }) {
  const { file } = await params;
  if (file === "docs-init.js") {
    return new Response(INIT_SCRIPT, { headers: { "content-type": "application/javascript; charset=utf-8" } });
  }
  const type = FILES[file];
  if (!type) return new Response("Not found", { status: 404 });
  const body = await readFile(path.join(process.cwd(), "node_modules", "swagger-ui-dist", file));
  return new Response(new Uint8Array(body), { headers: { "content-type": type, "cache-control": "public, max-age=86400" } });
}
