import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { apiError, PUBLIC_ORIGIN, startTelnyxStack, waitFor, type TelnyxStack } from "./harness";

/**
 * The Telnyx simulator's messaging (`POST /v2/messages`, message.sent / message.finalized webhooks, outcome by the
 * recipient's last digit) and numbers (`GET /v2/available_phone_numbers`, `POST /v2/number_orders`), through the
 * official client.
 */
let stack: TelnyxStack;

beforeAll(async () => {
  stack = await startTelnyxStack({ speed: 20 });
});
afterAll(async () => {
  await stack?.stop();
});

const messageEvents = (id: string) =>
  stack.received.filter((hook) => (hook.event.data.payload as { id?: string }).id === id).map((hook) => ({ type: hook.event.data.event_type, payload: hook.event.data.payload as { to: Array<{ status: string }>; errors: Array<{ code: string }> } }));

describe("Telnyx simulator: messaging", () => {
  it("sends an SMS: queued in the answer, then message.sent and message.finalized (delivered), signed", async () => {
    const { data } = await stack.client.messages.send({ from: "+12125550142", to: "+14155550100", text: "Your meeting is booked for Thursday.", webhook_url: `${PUBLIC_ORIGIN}/telnyx/sms` });
    expect(data).toMatchObject({ record_type: "message", direction: "outbound", type: "SMS", parts: 1, encoding: "GSM-7", to: [{ phone_number: "+14155550100", status: "queued" }] });
    const id = data!.id!;
    await waitFor(() => messageEvents(id).length === 2, "two message webhooks");
    expect(messageEvents(id).map((event) => [event.type, event.payload.to[0]!.status])).toEqual([
      ["message.sent", "sent"],
      ["message.finalized", "delivered"],
    ]);
    const hook = stack.received.find((entry) => entry.event.data.event_type === "message.finalized" && (entry.event.data.payload as { id?: string }).id === id)!;
    await stack.client.webhooks.unwrap(hook.body, { headers: hook.headers });
  });

  it("by the recipient's last digit: 3 delivery_failed (40008), 7 sending_failed (40006), 6 refused at once (422, 40310)", async () => {
    const failed = (await stack.client.messages.send({ from: "+12125550142", to: "+14155550103", text: "Hello", webhook_url: `${PUBLIC_ORIGIN}/telnyx/sms` })).data!.id!;
    const sending = (await stack.client.messages.send({ from: "+12125550142", to: "+14155550107", text: "Hello", webhook_url: `${PUBLIC_ORIGIN}/telnyx/sms` })).data!.id!;
    await waitFor(() => messageEvents(failed).length === 2 && messageEvents(sending).length === 2, "final webhooks");
    expect(messageEvents(failed)[1]!.payload).toMatchObject({ to: [{ status: "delivery_failed" }], errors: [{ code: "40008" }] });
    expect(messageEvents(sending)[1]!.payload).toMatchObject({ to: [{ status: "sending_failed" }], errors: [{ code: "40006" }] });
    expect(await apiError(stack.client.messages.send({ from: "+12125550142", to: "+14155550106", text: "Hello" }))).toEqual({ status: 422, codes: ["40310"] });
    expect(await apiError(stack.client.messages.send({ from: "+12125550142", to: "4155550100", text: "Hello" }))).toEqual({ status: 422, codes: ["10016"] });
  });
});

describe("Telnyx simulator: numbers", () => {
  it("searches numbers by area code and feature, orders one, and it is no longer for sale", async () => {
    const { data, meta } = await stack.client.availablePhoneNumbers.list({ filter: { country_code: "US", national_destination_code: "415", features: ["sms"], limit: 5 } });
    expect(data).toHaveLength(5);
    expect(meta).toMatchObject({ total_results: 5 });
    for (const number of data!) {
      expect(number.phone_number).toMatch(/^\+14155550(1\d\d)$/);
      expect(number.features?.map((feature) => feature.name)).toContain("sms");
    }
    const wanted = data![0]!.phone_number!;
    const order = await stack.client.numberOrders.create({ phone_numbers: [{ phone_number: wanted }], connection_id: "1684641123236054244" });
    expect(order.data).toMatchObject({ record_type: "number_order", status: "success", phone_numbers_count: 1, phone_numbers: [{ phone_number: wanted, status: "success" }] });
    const after = await stack.client.availablePhoneNumbers.list({ filter: { national_destination_code: "415", limit: 100 } });
    expect(after.data!.map((number) => number.phone_number)).not.toContain(wanted);
    expect(await apiError(stack.client.numberOrders.create({ phone_numbers: [{ phone_number: wanted }] }))).toEqual({ status: 422, codes: ["10015"] });
  });

  it("voice-only numbers (555-0130…0139) are left out of an SMS search; a prefix filter narrows the list", async () => {
    const sms = await stack.client.availablePhoneNumbers.list({ filter: { national_destination_code: "212", features: ["sms"], limit: 100 } });
    expect(sms.data!.some((number) => /55501(3\d)$/.test(number.phone_number!))).toBe(false);
    const all = await stack.client.availablePhoneNumbers.list({ filter: { national_destination_code: "212", limit: 100 } });
    expect(all.data!.filter((number) => /55501(3\d)$/.test(number.phone_number!))).toHaveLength(10);
    const ending = await stack.client.availablePhoneNumbers.list({ filter: { national_destination_code: "212", phone_number: { ends_with: "77" } } });
    expect(ending.data!.map((number) => number.phone_number)).toEqual(["+12125550177"]);
  });
});
