import { generateOpenApiDocument, type OpenAPIObject } from "trpc-to-openapi";
import { bodyLimitBytes, formatBytes } from "../http/request-body";
import { appRouter } from "./root";
import type { Meta } from "./init";

type Json = Record<string, unknown>;

const ERROR_DESCRIPTIONS: Record<string, string> = {
  "400": "Invalid request",
  "401": "Missing API key (UNAUTHORIZED) or invalid/revoked key (INVALID_API_KEY)",
  "429": "More than 10 requests per second for this key (RATE_LIMITED); see Retry-After",
  "500": "Unexpected error (INTERNAL_SERVER_ERROR); retry with backoff",
};

const errorSchema = {
  type: "object",
  required: ["error", "message"],
  properties: {
    error: { type: "string", description: "Machine-readable code, e.g. INVALID_REQUEST, AGENT_NOT_FOUND." },
    message: { type: "string", description: "Human-readable explanation." },
    details: { type: "object", description: "Optional extra information (validation issues, rejected contacts)." },
  },
};

const headOperation = (path: string): Json => ({
  operationId: `head${path.endsWith("s") ? "Sequences" : "Sequence"}`,
  summary: "Connectivity check",
  description: "Checks that the API key and the agent ID are valid without scheduling anything. 200 with no body.",
  tags: ["Enrollment"],
  security: [{ ApiKeyAuth: [] }],
  parameters: [{ name: "agentId", in: "path", required: true, schema: { type: "string" }, description: "Agent ID, format `agent.<id>`." }],
  responses: {
    "200": { description: "Key valid and agent reachable (no body)" },
    "401": { description: "Missing or invalid API key (no body on HEAD)" },
    "404": { description: "Unknown agent or an agent of another organization (no body on HEAD)" },
    "429": { description: "Rate limited (no body on HEAD)" },
  },
});

/** Operations the router cannot describe itself: the HEAD connectivity checks. */
const extraOperations: Array<{ path: string; method: "head"; operation: Json }> = [
  { path: "/agents/{agentId}/schedule/sequence", method: "head", operation: headOperation("/agents/{agentId}/schedule/sequence") },
  { path: "/agents/{agentId}/schedule/sequences", method: "head", operation: headOperation("/agents/{agentId}/schedule/sequences") },
];

let cached: OpenAPIObject | null = null;

/**
 * The OpenAPI 3.1 document, generated from the routers and then corrected where trpc-to-openapi cannot know:
 * success statuses (201/202 from `meta.successStatus`), the `{error, message}` error body on every error
 * response, 429/500 everywhere, and HEAD operations.
 */
export function getOpenApiDocument(baseUrl = "/api/v1"): OpenAPIObject {
  if (cached && cached.servers?.[0]?.url === baseUrl) return cached;
  const doc = generateOpenApiDocument(appRouter, {
    title: "Outbound AI Calling Service API",
    description:
      "Enroll contacts into AI calling sequences, read agent configuration and credit usage, pull conversations and recordings, manage booked meetings. Every request carries the organization API key in `x-api-key`. Errors are `{error, message}`.",
    version: "1.0.0",
    baseUrl,
    docsUrl: "/docs",
    securitySchemes: { ApiKeyAuth: { type: "apiKey", in: "header", name: "x-api-key" } },
  });
  const components = ((doc.components ??= {}) as Json) as { schemas?: Json };
  components.schemas = { ...(components.schemas ?? {}), Error: errorSchema };

  const successStatus = new Map<string, number>();
  // trpc-to-openapi caches one response object per tRPC error code, so the first procedure's description of, say,
  // a 400 would show on every operation: each operation's own `errorResponses` text is re-applied below.
  const errorDescriptions = new Map<string, Record<number, string>>();
  for (const procedure of Object.values(appRouter._def.procedures) as unknown as Array<{ _def: { meta?: Meta } }>) {
    const meta = procedure._def.meta;
    if (meta?.openapi && meta.successStatus) {
      successStatus.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, meta.successStatus);
    }
    const declared = meta?.openapi?.errorResponses;
    if (meta?.openapi && declared && !Array.isArray(declared)) {
      errorDescriptions.set(`${meta.openapi.method.toLowerCase()} ${meta.openapi.path}`, declared as Record<number, string>);
    }
  }

  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    for (const [method, operation] of Object.entries(item as Record<string, Json>)) {
      const responses = (operation.responses ??= {}) as Record<string, Json>;
      const status = successStatus.get(`${method} ${path}`);
      if (status && responses["200"]) {
        responses[String(status)] = responses["200"];
        delete responses["200"];
      }
      // A body whose fields are all optional may be omitted entirely (treated as `{}`, DESIGN §4).
      const requestBody = operation.requestBody as { required?: boolean; content?: Record<string, { schema?: { required?: string[] } }> } | undefined;
      const bodySchema = requestBody?.content?.["application/json"]?.schema;
      if (requestBody && bodySchema && !(bodySchema.required?.length)) requestBody.required = false;
      const isProtected = Array.isArray(operation.security) && operation.security.length > 0;
      const codes = new Set(Object.keys(responses).filter((code) => Number(code) >= 400));
      if (isProtected) ["401", "429"].forEach((code) => codes.add(code));
      const bodyErrors: Record<string, string> = {};
      if (requestBody) {
        const limit = formatBytes(bodyLimitBytes(method, path));
        bodyErrors["413"] = `Request body larger than ${limit} (PAYLOAD_TOO_LARGE)`;
        bodyErrors["415"] = "Request body that is not `application/json` (UNSUPPORTED_MEDIA_TYPE)";
        ["413", "415"].forEach((code) => codes.add(code));
      }
      codes.add("400");
      codes.add("500");
      for (const code of codes) {
        const existing = responses[code] as { description?: string } | undefined;
        const own = errorDescriptions.get(`${method} ${path}`)?.[Number(code)];
        responses[code] = {
          description: own ?? bodyErrors[code] ?? ERROR_DESCRIPTIONS[code] ?? existing?.description ?? "Error",
          content: { "application/json": { schema: { $ref: "#/components/schemas/Error" } } },
        };
      }
    }
  }
  for (const extra of extraOperations) {
    const item = ((doc.paths ??= {})[extra.path] ??= {}) as Json;
    item[extra.method] = extra.operation;
  }
  cached = doc;
  return doc;
}
