import { describe, expect, it } from "vitest";
import { getOpenApiDocument } from "@/server/trpc/openapi";

type Operation = { responses: Record<string, unknown>; requestBody?: { content: Record<string, { schema: { examples?: unknown[] } }> }; tags?: string[] };

describe("the OpenAPI document: agents as code and agent tests", () => {
  const doc = getOpenApiDocument() as unknown as { paths: Record<string, Record<string, Operation>> };
  const op = (path: string, method: string) => doc.paths[path]?.[method];

  it("documents every new operation with its success status, errors and examples", () => {
    const expected: Array<[string, string, string]> = [
      ["/agents", "post", "201"],
      ["/agents/{agentId}", "put", "200"],
      ["/agents/{agentId}/config", "get", "200"],
      ["/agents/{agentId}/tests/cases", "get", "200"],
      ["/agents/{agentId}/tests/cases", "post", "201"],
      ["/agents/{agentId}/tests/cases/{testCaseId}", "get", "200"],
      ["/agents/{agentId}/tests/cases/{testCaseId}", "put", "200"],
      ["/agents/{agentId}/tests/cases/{testCaseId}", "delete", "200"],
      ["/agents/{agentId}/tests/runs", "post", "202"],
      ["/agents/{agentId}/tests/runs", "get", "200"],
      ["/agents/{agentId}/tests/runs/{runId}", "get", "200"],
      ["/agents/{agentId}/prompt-versions", "get", "200"],
      ["/agents/{agentId}/prompt-versions/diff", "get", "200"],
      ["/agents/{agentId}/prompt-versions/{promptVersionId}/current", "post", "200"],
    ];
    for (const [path, method, status] of expected) {
      const operation = op(path, method);
      expect(operation, `${method} ${path}`).toBeDefined();
      expect(Object.keys(operation!.responses), `${method} ${path}`).toEqual(expect.arrayContaining([status, "401", "404", "500"].filter((code) => !(path === "/agents" && code === "404"))));
    }
    const createCase = op("/agents/{agentId}/tests/cases", "post")!;
    expect(createCase.requestBody!.content["application/json"]!.schema.examples?.[0]).toMatchObject({ expectations: { toolsCalled: ["book_meeting"] } });
    expect(JSON.stringify(op("/agents/{agentId}/tests/runs/{runId}", "get")!.responses["200"])).toContain("tools called: end_call");
    expect(JSON.stringify(op("/agents/{agentId}/tests/runs", "post")!.responses["400"])).toContain("TOO_MANY_TEST_CASES");
  });

  it("keeps the existing operations as they were (additive only)", () => {
    expect(Object.keys(doc.paths["/agents"]!).sort()).toEqual(["get", "post"]);
    expect(op("/agents/{agentId}/outcomes", "get")).toBeDefined();
    expect(op("/agent/{agentId}/call_event_sample", "get")).toBeDefined();
  });
});
