import { describe, expect, it } from "vitest";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const api = apiClient(db);

type Schema = { $ref?: string; examples?: unknown[]; properties?: Record<string, Schema> };
type Operation = {
  parameters?: Array<{ in: string; name: string }>;
  requestBody?: { content: { "application/json": { schema: Schema } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: Schema }> }>;
};

describe("OpenAPI: the numbers operations (issue 35)", () => {
  it("documents list, search, buy, get, update, release and caller-ID validation, with examples and their errors", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, Operation>>;
    const schemas = res.body.components.schemas as Record<string, Schema>;
    const methods = (path: string) => Object.keys(paths[path] ?? {}).filter((method) => method !== "head").sort();
    expect(methods("/numbers")).toEqual(["get", "post"]);
    expect(methods("/numbers/available")).toEqual(["get"]);
    expect(methods("/numbers/caller-id-validations")).toEqual(["post"]);
    expect(methods("/numbers/{numberId}")).toEqual(["delete", "get", "patch"]);

    // Request bodies carry an example an integrator can send as it is.
    for (const operation of [paths["/numbers"]!.post!, paths["/numbers/caller-id-validations"]!.post!, paths["/numbers/{numberId}"]!.patch!]) {
      expect(operation.requestBody!.content["application/json"].schema.examples?.length).toBeGreaterThan(0);
    }
    // The number object answered by every operation has a full example, health included.
    const listed = JSON.stringify(paths["/numbers"]!.get!.responses["200"]) + JSON.stringify(schemas);
    expect(listed).toContain('"restingUntil":"2026-11-30T15:04:05.000Z"');
    expect(paths["/numbers/available"]!.get!.parameters!.map((parameter) => parameter.name).sort()).toEqual(["areaCode", "carrier", "contains", "country", "limit", "region", "sms"]);

    // The refusals an integrator must handle, by name.
    expect(paths["/numbers"]!.post!.responses["409"]!.description).toContain("NUMBER_OWNED_ELSEWHERE");
    expect(paths["/numbers/caller-id-validations"]!.post!.responses["409"]!.description).toContain("NUMBER_OWNED_ELSEWHERE");
    expect(paths["/numbers/{numberId}"]!.get!.responses["404"]!.description).toContain("NUMBER_NOT_FOUND");
    expect(paths["/numbers"]!.post!.responses["400"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/Error" });
    // Pools are checked where they are written: the agent document's 409.
    expect(paths["/agents/{agentId}"]!.put!.responses["409"]!.description).toContain("NUMBER_OWNED_ELSEWHERE");
  });
});
