import { describe, expect, it } from "vitest";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const api = apiClient(db);

type Operation = {
  parameters?: Array<{ in: string; name: string; required?: boolean; schema?: { maxLength?: number } }>;
  requestBody?: { content: { "application/json": { schema: { properties?: Record<string, unknown>; required?: string[] } } } };
  responses: Record<string, { description: string; content?: Record<string, { schema: unknown }> }>;
};

describe("OpenAPI: the enrollment operations", () => {
  it("describes the four operations, their bodies, the idempotency header and every error", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const paths = res.body.paths as Record<string, Record<string, Operation>>;
    const one = paths["/agents/{agentId}/schedule/sequence"]!;
    const many = paths["/agents/{agentId}/schedule/sequences"]!;
    const cancel = paths["/sequences/cancel"]!.post!;
    expect(Object.keys(one).sort()).toEqual(["head", "post"]);
    expect(Object.keys(many).sort()).toEqual(["head", "post"]);

    expect(Object.keys(one.post!.responses).sort()).toEqual(["201", "400", "401", "402", "404", "409", "413", "415", "422", "429", "500"]);
    expect(Object.keys(many.post!.responses).sort()).toEqual(["202", "400", "401", "402", "404", "413", "415", "422", "429", "500"]);
    expect(Object.keys(cancel.responses).sort()).toEqual(["200", "400", "401", "413", "415", "429", "500"]);
    expect(Object.keys(one.head!.responses).sort()).toEqual(["200", "401", "404", "429"]);

    for (const [operation, codes] of [
      [one.post!, { "400": "INVALID_PHONE_NUMBER", "402": "INSUFFICIENT_CREDITS", "409": "OPTED_OUT", "422": "AGENT_MISCONFIGURED" }],
      [many.post!, { "400": "NO_VALID_CONTACTS", "402": "INSUFFICIENT_CREDITS", "404": "AGENT_NOT_FOUND", "422": "AGENT_MISCONFIGURED" }],
    ] as const) {
      for (const [status, code] of Object.entries(codes)) expect(operation.responses[status]!.description).toContain(code);
      expect(operation.responses["400"]!.content!["application/json"]!.schema).toEqual({ $ref: "#/components/schemas/Error" });
    }

    const oneBody = one.post!.requestBody!.content["application/json"].schema;
    expect(oneBody.required).toEqual(["name", "phoneNumber"]);
    expect(Object.keys(oneBody.properties!)).toEqual(
      expect.arrayContaining(["name", "phoneNumber", "phoneNumberExt", "toEmailAddress", "timezone", "scheduledAt", "bypassCallWindows", "groupByField", "customVariables"]),
    );
    expect(oneBody).toMatchObject({ additionalProperties: { type: "string" }, properties: { bypassCallWindows: { type: "boolean" } } });

    const manyBody = many.post!.requestBody!.content["application/json"].schema as { properties: Record<string, { minItems?: number; maxItems?: number; items?: unknown }> };
    expect(manyBody.properties.contacts).toMatchObject({ minItems: 1, maxItems: 1000 });
    expect(Object.keys(manyBody.properties)).toEqual(expect.arrayContaining(["contacts", "timezone", "groupByField", "allowDuplicates", "titleCaseFields"]));
    const header = many.post!.parameters!.find((p) => p.in === "header");
    expect(header).toMatchObject({ name: "Idempotency-Key", schema: { type: "string", maxLength: 255 } });
    expect(header!.required ?? false).toBe(false);

    const cancelBody = cancel.requestBody!.content["application/json"].schema;
    expect(cancelBody.required).toEqual(["referenceKey", "referenceValue"]);
  });
});
