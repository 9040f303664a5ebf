import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, it } from "vitest";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const api = apiClient(db);

type Json = Record<string, any>;

function param(op: Json, name: string): Json {
  const found = op.parameters.find((p: Json) => p.name === name);
  expect(found, name).toBeDefined();
  return found;
}

function errorRef(op: Json, code: string) {
  return op.responses[code]?.content?.["application/json"]?.schema;
}

describe("OpenAPI: conversations and recordings", () => {
  it("describes the four operations fully: parameters, bodies, success and error responses", async () => {
    const doc = (await api("/openapi.json")).body as Json;
    const validator = new Validator();
    expect((await validator.validate(doc as Parameters<Validator["validate"]>[0])).valid).toBe(true);

    const search = doc.paths["/conversations/search/{agentId}"].get;
    const metadata = doc.paths["/conversations/metadata/{sequenceId}"].get;
    const list = doc.paths["/recordings"].post;
    const single = doc.paths["/recordings/{callId}"].get;
    for (const op of [search, metadata, list, single]) {
      expect(op.summary).toEqual(expect.any(String));
      expect(op.description.length).toBeGreaterThan(60);
      expect(op.security).toEqual([{ ApiKeyAuth: [] }]);
      for (const code of ["400", "401", "429", "500"]) expect(errorRef(op, code), code).toEqual({ $ref: "#/components/schemas/Error" });
      expect(op.responses["200"].content["application/json"].schema.type).toBe("object");
    }
    for (const op of [search, metadata, single]) expect(errorRef(op, "404")).toEqual({ $ref: "#/components/schemas/Error" });
    expect(list.responses["200"]).toBeDefined();
    expect(list.responses["201"]).toBeUndefined();

    // Search: typed query parameters with their bounds.
    expect(param(search, "agentId")).toMatchObject({ in: "path", required: true });
    expect(param(search, "start")).toMatchObject({ in: "query", required: true, schema: { type: "string", format: "date" } });
    expect(param(search, "end")).toMatchObject({ in: "query", required: true, schema: { type: "string", format: "date" } });
    expect(param(search, "limit").schema).toMatchObject({ type: "integer", minimum: 1, maximum: 500 });
    expect(param(search, "offset").schema).toMatchObject({ type: "integer", minimum: 0 });
    const searchBody = search.responses["200"].content["application/json"].schema;
    expect(searchBody.required).toEqual(expect.arrayContaining(["sequenceIds", "hasMore", "total", "limit", "offset"]));
    expect(searchBody.properties.sequenceIds).toMatchObject({ type: "array", items: { type: "string" } });
    expect(searchBody.properties.hasMore.type).toBe("boolean");

    // Metadata: includeRecording documented as a boolean flag; the Call metadata object with recordingUrl.
    expect(param(metadata, "sequenceId")).toMatchObject({ in: "path", required: true });
    expect(param(metadata, "includeRecording").schema).toMatchObject({ type: "boolean" });
    expect(param(metadata, "includeRecording").schema.description).toMatch(/any letter case/);
    const metadataBody = metadata.responses["200"].content["application/json"].schema;
    expect(metadataBody.required).toEqual(["sequenceId", "metadata", "messages"]);
    const callMetadata = metadataBody.properties.metadata.items;
    expect(Object.keys(callMetadata.properties)).toEqual(
      expect.arrayContaining(["agentId", "callId", "scheduledAt", "callResult", "sequence", "callStatus", "recordingUrl"]),
    );
    expect(callMetadata.required).not.toContain("recordingUrl");

    // POST /recordings: the body and the Recording entry.
    const requestBody = list.requestBody.content["application/json"].schema;
    expect(requestBody.required).toEqual(["sequenceIds"]);
    expect(requestBody.properties.sequenceIds).toMatchObject({ type: "array", minItems: 1, maxItems: 100, items: { type: "string" } });
    expect(requestBody.properties.includeTranscripts.type).toBe("boolean");
    const listBody = list.responses["200"].content["application/json"].schema;
    expect(listBody.required).toEqual(["recordings"]);
    expect(listBody.properties.notFound).toMatchObject({ type: "array", items: { type: "string" } });
    const entry = listBody.properties.recordings.items.properties.calls.items;
    expect(entry.required).toEqual(["callId", "recordingStatus"]);
    expect(entry.properties.recordingStatus.enum).toEqual(["downloaded", "no-recording", "call-not-found"]);
    expect(entry.properties.url).toMatchObject({ type: "string", format: "uri" });
    expect(entry.properties.expiresAt).toMatchObject({ type: "string", format: "date-time" });
    for (const field of ["durationSeconds", "stepNumber"]) expect(entry.properties[field].type).toBe("integer");
    expect(entry.properties.transcript.type).toBe("string");
    // Error codes are spelled out in each operation's description (trpc-to-openapi shares one description per status
    // code across all operations, so the per-response descriptions cannot be trusted to be this operation's).
    expect(list.description).toMatch(/INVALID_REQUEST \(/);
    expect(list.description).toMatch(/TOO_MANY_CALLS/);
    expect(list.description).toMatch(/INVALID_REQUEST_BODY/);
    expect(search.description).toMatch(/AGENT_NOT_FOUND/);
    expect(metadata.description).toMatch(/SEQUENCE_NOT_FOUND/);

    // GET /recordings/{callId}: {recording: entry + sequenceId}.
    expect(param(single, "callId")).toMatchObject({ in: "path", required: true });
    const singleBody = single.responses["200"].content["application/json"].schema;
    expect(singleBody.required).toEqual(["recording"]);
    expect(singleBody.properties.recording.required).toEqual(expect.arrayContaining(["callId", "recordingStatus", "sequenceId"]));
    expect(single.description).toMatch(/CALL_NOT_FOUND/);
  });
});
