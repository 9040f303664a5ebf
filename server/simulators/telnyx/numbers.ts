import { randomUUID } from "node:crypto";
import type { ServerResponse } from "node:http";
import { about, E164, ERRORS, json, telnyxError } from "./rest";

/**
 * Numbers for the Telnyx simulator, written from Telnyx's documentation:
 * - https://developers.telnyx.com/api/numbers/list-available-phone-numbers — `GET /v2/available_phone_numbers` with
 *   `filter[country_code]`, `filter[national_destination_code]`, `filter[phone_number][starts_with|contains|
 *   ends_with]`, `filter[features][]`, `filter[limit]` → `{data: [{record_type: "available_phone_number",
 *   phone_number, region_information, cost_information, features, best_effort, quickship, reservable}],
 *   meta: {total_results, best_effort_results}}`.
 * - https://developers.telnyx.com/api/numbers/create-number-order — `POST /v2/number_orders` with `phone_numbers:
 *   [{phone_number}]`, `connection_id`, `messaging_profile_id` → `{data: {id, record_type: "number_order", status,
 *   phone_numbers: [{id, phone_number, status, record_type: "number_order_phone_number"}], phone_numbers_count, …}}`.
 * - https://developers.telnyx.com/api/numbers/list-phone-numbers — `GET /v2/phone_numbers?filter[phone_number]=…` →
 *   `{data: [{id, record_type: "phone_number", phone_number, status: "active", connection_id, messaging_profile_id}]}`;
 *   https://developers.telnyx.com/api/numbers/delete-phone-number — `DELETE /v2/phone_numbers/{id}` releases it
 *   (`status: "deleted"`), back in stock; an unknown id is 404.
 * Stock: fictional US numbers `+1 NDC 555-0100` … `555-0199` for any three-digit area code (212 when none is given);
 * 555-0130 … 0139 are voice-only. Quickship numbers: an order succeeds at once (`status: "success"`; Telnyx may
 * answer `pending` and finish later, which the simulator does not do). A number bought is not for sale any more.
 */

type Available = { phoneNumber: string; ndc: string; sms: boolean };

export class TelnyxNumbers {
  /** Numbers the account holds, with the order that bought them. */
  readonly owned = new Map<string, { id: string; orderId: string; connectionId: string | null; messagingProfileId: string | null }>();
  readonly orders: Array<{ id: string; phoneNumbers: string[] }> = [];

  private stock(ndc: string): Available[] {
    return Array.from({ length: 100 }, (_, i) => ({ phoneNumber: `+1${ndc}55501${String(i).padStart(2, "0")}`, ndc, sms: i < 30 || i >= 40 })).filter((number) => !this.owned.has(number.phoneNumber));
  }

  private toJson(number: Available) {
    return {
      record_type: "available_phone_number",
      phone_number: number.phoneNumber,
      vanity_format: "",
      best_effort: false,
      quickship: true,
      reservable: true,
      region_information: [
        { region_type: "country_code", region_name: "US" },
        { region_type: "rate_center", region_name: `NDC ${number.ndc}` },
      ],
      cost_information: { upfront_cost: "1.00", monthly_cost: "1.00", currency: "USD" },
      features: [{ name: "voice" }, ...(number.sms ? [{ name: "sms" }, { name: "mms" }] : [])],
    };
  }

  /** `GET /v2/available_phone_numbers`. */
  search(res: ServerResponse, query: URLSearchParams): number {
    const country = query.get("filter[country_code]") ?? "US";
    if (country !== "US") return json(res, 200, { data: [], meta: { total_results: 0, best_effort_results: 0 } });
    const ndc = query.get("filter[national_destination_code]") ?? "212";
    if (!/^[2-9]\d\d$/.test(ndc)) return telnyxError(res, 400, about(ERRORS.badRequest, "filter[national_destination_code]", `Not an area code: ${ndc}`));
    const limit = Number(query.get("filter[limit]") ?? 50);
    const features = [...query.getAll("filter[features][]"), ...query.getAll("filter[features]")].flatMap((value) => value.split(","));
    const [startsWith, contains, endsWith] = ["starts_with", "contains", "ends_with"].map((key) => query.get(`filter[phone_number][${key}]`));
    const found = this.stock(ndc).filter((number) => {
      const national = number.phoneNumber.slice(2);
      if (startsWith && !national.startsWith(startsWith) && !number.phoneNumber.startsWith(startsWith)) return false;
      if (contains && !number.phoneNumber.includes(contains)) return false;
      if (endsWith && !number.phoneNumber.endsWith(endsWith)) return false;
      return !features.some((feature) => (feature === "sms" || feature === "mms") && !number.sms);
    });
    const page = found.slice(0, Number.isFinite(limit) && limit > 0 ? limit : 50);
    return json(res, 200, { data: page.map((number) => this.toJson(number)), meta: { total_results: page.length, best_effort_results: 0 } });
  }

  private phoneNumberJson(phoneNumber: string, status = "active") {
    const held = this.owned.get(phoneNumber)!;
    return { id: held.id, record_type: "phone_number", phone_number: phoneNumber, status, connection_id: held.connectionId, messaging_profile_id: held.messagingProfileId };
  }

  /** `GET /v2/phone_numbers` (the account's numbers; `filter[phone_number]` exact). */
  list(res: ServerResponse, query: URLSearchParams): number {
    const wanted = query.get("filter[phone_number]");
    const found = [...this.owned.keys()].filter((number) => !wanted || number === wanted);
    return json(res, 200, { data: found.map((number) => this.phoneNumberJson(number)), meta: { total_results: found.length, page_number: 1, page_size: 20, total_pages: 1 } });
  }

  /** `DELETE /v2/phone_numbers/{id}`. */
  release(res: ServerResponse, id: string): number {
    const number = [...this.owned.entries()].find(([, held]) => held.id === id)?.[0];
    if (!number) return telnyxError(res, 404, ERRORS.notFound);
    const body = this.phoneNumberJson(number, "deleted");
    this.owned.delete(number);
    return json(res, 200, { data: body });
  }

  /** `POST /v2/number_orders`. */
  order(res: ServerResponse, body: Record<string, unknown>): number {
    const wanted = Array.isArray(body.phone_numbers) ? (body.phone_numbers as Array<{ phone_number?: unknown }>).map((entry) => entry?.phone_number) : [];
    if (wanted.length === 0) return telnyxError(res, 422, about(ERRORS.missing, "phone_numbers"));
    for (const number of wanted) {
      if (typeof number !== "string" || !E164.test(number)) return telnyxError(res, 422, about(ERRORS.e164, "phone_numbers"));
      const ndc = number.slice(2, 5);
      if (!number.startsWith("+1") || !this.stock(ndc).some((entry) => entry.phoneNumber === number)) {
        return telnyxError(res, 422, about({ code: "10015", title: "Bad Request", detail: `${number} is not available for purchase.` }, "phone_numbers"));
      }
    }
    const id = randomUUID();
    const connectionId = typeof body.connection_id === "string" ? body.connection_id : null;
    const messagingProfileId = typeof body.messaging_profile_id === "string" ? body.messaging_profile_id : null;
    const now = new Date().toISOString();
    for (const number of wanted as string[]) this.owned.set(number, { id: randomUUID(), orderId: id, connectionId, messagingProfileId });
    this.orders.push({ id, phoneNumbers: wanted as string[] });
    return json(res, 200, {
      data: {
        id,
        record_type: "number_order",
        status: "success",
        phone_numbers_count: wanted.length,
        phone_numbers: (wanted as string[]).map((phoneNumber) => ({ id: randomUUID(), record_type: "number_order_phone_number", phone_number: phoneNumber, status: "success", regulatory_requirements: [], requirements_met: true })),
        connection_id: connectionId,
        messaging_profile_id: messagingProfileId,
        requirements_met: true,
        customer_reference: typeof body.customer_reference === "string" ? body.customer_reference : null,
        created_at: now,
        updated_at: now,
      },
    });
  }
}
