import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { createTestOrganization } from "../factories";
import { apiClient } from "../helpers/api";
import { useTestDb } from "../helpers/db";

const db = useTestDb();
const api = apiClient(db);

describe("request bodies", () => {
  it("answers 415 UNSUPPORTED_MEDIA_TYPE for a non-JSON body and 400 INVALID_REQUEST_BODY for broken JSON", async () => {
    const { apiKey } = await createTestOrganization(db);
    const form = await api("/sequences/cancel", { method: "POST", key: apiKey, rawBody: "a=b", headers: { "content-type": "application/x-www-form-urlencoded" } });
    expect(form.status).toBe(415);
    expect(form.body).toEqual({ error: "UNSUPPORTED_MEDIA_TYPE", message: expect.any(String) });
    const broken = await api("/sequences/cancel", { method: "POST", key: apiKey, rawBody: "{not json", headers: { "content-type": "application/json" } });
    expect(broken.status).toBe(400);
    expect(broken.body).toEqual({ error: "INVALID_REQUEST_BODY", message: expect.any(String) });
  });
});

describe("OpenAPI document", () => {
  it("is served without a key and validates as OpenAPI 3.1", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    expect(res.body.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(res.body);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("describes the key scheme, every operation's errors, and the HEAD checks", async () => {
    const doc = (await api("/openapi.json")).body;
    expect(doc.components.securitySchemes.ApiKeyAuth).toEqual({ type: "apiKey", in: "header", name: "x-api-key" });
    expect(doc.components.schemas.Error.required).toEqual(["error", "message"]);
    for (const path of ["/agents", "/agents/{agentId}/input-variables", "/agents/{agentId}/extracted-variables", "/agents/{agentId}/outcomes", "/credits/usage"]) {
      const op = doc.paths[path].get;
      expect(op, path).toBeDefined();
      expect(op.security).toEqual([{ ApiKeyAuth: [] }]);
      for (const code of ["400", "401", "429", "500"]) {
        expect(op.responses[code].content["application/json"].schema, `${path} ${code}`).toEqual({ $ref: "#/components/schemas/Error" });
      }
      expect(op.responses["200"]).toBeDefined();
    }
    expect(doc.paths["/agents"].get.responses["403"]).toBeDefined();
    expect(doc.paths["/agents/{agentId}/outcomes"].get.responses["404"]).toBeDefined();
    expect(doc.paths["/agents/{agentId}/schedule/sequence"].head.responses["200"]).toBeDefined();
    const params = doc.paths["/credits/usage"].get.parameters.map((p: { name: string }) => p.name);
    expect(params).toEqual(expect.arrayContaining(["month", "startDate", "endDate"]));
  });
});
