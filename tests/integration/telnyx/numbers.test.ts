import { eq } from "drizzle-orm";
import { afterAll, describe, expect, it } from "vitest";
import { numbers } from "@/db/schema";
import { getTelnyxAccount, stopEmbeddedTelnyxSimulator } from "@/server/carriers/telnyx/telnyx-account";
import type { TelnyxSimulator } from "@/server/simulators/telnyx";
import { createTestOrganization } from "../../factories";
import { apiClient } from "../../helpers/api";
import { useTestDb } from "../../helpers/db";

/**
 * Issue 36: numbers searched, bought and released through Telnyx (the official client against the embedded Telnyx
 * simulator) when the admin picks `carrier: "telnyx"` on /api/v1/numbers; without `carrier` nothing changes (Twilio).
 */
const db = useTestDb();
const api = apiClient(db);
afterAll(async () => {
  await stopEmbeddedTelnyxSimulator();
});

async function telnyx(): Promise<TelnyxSimulator> {
  return (await getTelnyxAccount()).simulator!;
}

describe("numbers through Telnyx", () => {
  it("searches Telnyx's stock, buys a number as the organization's Telnyx number, and releases it back to Telnyx", async () => {
    const { apiKey, organization } = await createTestOrganization(db);
    const found = await api("/numbers/available", { key: apiKey, query: { carrier: "telnyx", areaCode: "718", sms: "true", limit: 3 } });
    expect(found.status, found.text).toBe(200);
    expect(found.body.numbers).toHaveLength(3);
    expect(found.body.numbers[0]).toMatchObject({ phoneNumber: expect.stringMatching(/^\+171855501\d\d$/), capabilities: { voice: true, sms: true } });
    const phoneNumber = found.body.numbers[0].phoneNumber as string;
    expect((await telnyx()).requests.some((request) => request.path === "/v2/available_phone_numbers")).toBe(true);

    const bought = await api("/numbers", { method: "POST", key: apiKey, body: { phoneNumber, carrier: "telnyx" } });
    expect(bought.status, bought.text).toBe(201);
    expect(bought.body.number).toMatchObject({ phoneNumber, carrier: "telnyx", source: "purchased", status: "active", capabilities: { voice: true, sms: true, inbound: true } });
    const held = (await telnyx()).numbers.owned.get(phoneNumber);
    expect(held).toBeDefined();
    const [row] = await db.select().from(numbers).where(eq(numbers.id, bought.body.number.numberId));
    expect(row).toMatchObject({ organizationId: organization.id, carrier: "telnyx", providerSid: held!.id });

    // Not for sale any more, at Telnyx or here.
    const again = await api("/numbers/available", { key: apiKey, query: { carrier: "telnyx", areaCode: "718", limit: 50 } });
    expect(again.body.numbers.map((number: { phoneNumber: string }) => number.phoneNumber)).not.toContain(phoneNumber);

    const released = await api(`/numbers/${row!.id}`, { method: "DELETE", key: apiKey });
    expect(released.status, released.text).toBe(200);
    expect((await telnyx()).numbers.owned.has(phoneNumber)).toBe(false);
    expect((await telnyx()).requests.some((request) => request.method === "DELETE" && request.path === `/v2/phone_numbers/${held!.id}` && request.status === 200)).toBe(true);
  });

  it("a number Telnyx will not sell is refused with Telnyx's reason and leaves nothing behind; an unknown carrier is a field error", async () => {
    const { apiKey, organization } = await createTestOrganization(db);
    const refused = await api("/numbers", { method: "POST", key: apiKey, body: { phoneNumber: "+17185550999", carrier: "telnyx" } });
    expect(refused.status).toBe(502);
    expect(refused.body).toMatchObject({ error: "PROVIDER_ERROR", message: "The carrier refused to sell the number (error 10015)." });
    expect(await db.select().from(numbers).where(eq(numbers.organizationId, organization.id))).toEqual([]);

    const unknown = await api("/numbers", { method: "POST", key: apiKey, body: { phoneNumber: "+17185550101", carrier: "plivo" } });
    expect(unknown.status).toBe(400);
    expect(unknown.body).toMatchObject({ error: expect.stringMatching(/^INVALID_REQUEST/), message: expect.stringContaining("carrier") });
    const search = await api("/numbers/available", { key: apiKey, query: { carrier: "plivo" } });
    expect(search.status).toBe(400);
    expect(search.body).toMatchObject({ error: "INVALID_REQUEST", message: expect.stringContaining("carrier") });
  });
});
