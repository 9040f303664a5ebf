import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import * as limits from "@/server/schemas/limits";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

const db = useTestDb();
const api = apiClient(db);

type Schema = Record<string, any>;
const bodyOf = (doc: Schema, path: string) => doc.paths[path].post.requestBody.content["application/json"].schema as Schema;
const parameter = (doc: Schema, path: string, name: string) =>
  (doc.paths[path].get.parameters as Array<{ name: string; schema: Schema }>).find((p) => p.name === name)!.schema;

describe("the limits in /api/v1/openapi.json", () => {
  it("shows string, collection and integer bounds as maxLength, maxItems, maxProperties and maximum", async () => {
    const res = await api("/openapi.json");
    expect(res.status).toBe(200);
    const doc = res.body as Schema;

    const single = bodyOf(doc, "/agents/{agentId}/schedule/sequence");
    expect(single.properties.name.maxLength).toBe(limits.MAX_NAME_LENGTH);
    expect(single.properties.phoneNumber.maxLength).toBe(limits.MAX_PHONE_NUMBER_LENGTH);
    expect(single.properties.toEmailAddress.maxLength).toBe(limits.MAX_EMAIL_LENGTH);
    expect(single.properties.customVariables).toMatchObject({
      maxProperties: limits.MAX_VARIABLES_PER_CONTACT,
      propertyNames: { maxLength: limits.MAX_VARIABLE_NAME_LENGTH },
      additionalProperties: { type: "string", maxLength: limits.MAX_VARIABLE_VALUE_LENGTH },
    });
    expect(single.additionalProperties).toMatchObject({ type: "string", maxLength: limits.MAX_VARIABLE_VALUE_LENGTH });

    const bulk = bodyOf(doc, "/agents/{agentId}/schedule/sequences");
    expect(bulk.properties.contacts).toMatchObject({ minItems: 1, maxItems: limits.MAX_CONTACTS_PER_REQUEST });
    expect(bulk.properties.contacts.items.properties.name).toMatchObject({ type: "string", maxLength: limits.MAX_NAME_LENGTH });
    expect(bulk.properties.contacts.items.properties.customVariables.maxProperties).toBe(limits.MAX_VARIABLES_PER_CONTACT);
    expect(bulk.properties.titleCaseFields).toMatchObject({ maxItems: limits.MAX_TITLE_CASE_FIELDS, items: { maxLength: limits.MAX_VARIABLE_NAME_LENGTH } });
    expect(bulk.properties.timezone.maxLength).toBe(limits.MAX_TIMEZONE_LENGTH);

    const cancel = bodyOf(doc, "/sequences/cancel");
    expect(cancel.properties.referenceKey.maxLength).toBe(limits.MAX_VARIABLE_NAME_LENGTH);
    expect(cancel.properties.referenceValue.maxLength).toBe(limits.MAX_VARIABLE_VALUE_LENGTH);

    const recordings = bodyOf(doc, "/recordings");
    expect(recordings.properties.sequenceIds).toMatchObject({ maxItems: limits.MAX_SEQUENCE_IDS_PER_RECORDINGS_REQUEST, items: { maxLength: limits.MAX_ID_LENGTH } });

    const attendees = bodyOf(doc, "/conversations/meetings/{entityId}/attendees");
    expect(attendees.properties.attendees.maxItems).toBe(limits.MAX_ATTENDEES_PER_REQUEST);
    expect(attendees.properties.attendees.items.properties.name.maxLength).toBe(limits.MAX_NAME_LENGTH);
    expect(attendees.properties.attendees.items.properties.email.maxLength).toBe(limits.MAX_EMAIL_LENGTH);
    expect(bodyOf(doc, "/conversations/meetings/{entityId}/cancel").properties.cancellationReason.maxLength).toBe(limits.MAX_DESCRIPTION_LENGTH);

    expect(parameter(doc, "/agents", "page")).toMatchObject({ type: "integer", minimum: 1, maximum: limits.MAX_PAGE });
    expect(parameter(doc, "/agents", "orgId").maxLength).toBe(limits.MAX_ID_LENGTH);
    expect(parameter(doc, "/conversations/search/{agentId}", "limit")).toMatchObject({ type: "integer", maximum: limits.MAX_SEARCH_LIMIT });
    expect(parameter(doc, "/conversations/search/{agentId}", "offset")).toMatchObject({ type: "integer", maximum: limits.MAX_OFFSET });
  });
});

describe("docs/security.md", () => {
  it("lists every limit of server/schemas/limits.ts with its value", () => {
    const text = readFileSync(path.resolve("docs/security.md"), "utf8");
    const section = text.slice(text.indexOf("## Input limits"), text.indexOf("\n## ", text.indexOf("## Input limits") + 3));
    const rows = section.split("\n").filter((line) => /^\| .*`(MAX|MIN)_[A-Z0-9_]+` \|$/.test(line));
    const documented = new Map<string, number>();
    for (const row of rows) {
      const cells = row.split("|").map((cell) => cell.trim());
      const name = cells[3]!.replaceAll("`", "");
      const value = Number(/[\d,]+/.exec(cells[2]!)![0].replaceAll(",", ""));
      documented.set(name, value);
    }
    const defined = Object.fromEntries(Object.entries(limits).filter(([, value]) => typeof value === "number"));
    expect(Object.fromEntries(documented)).toEqual(defined);
  });
});
