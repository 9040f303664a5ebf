import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SimNumberNotInServiceError } from "@/server/simulators/twilio";
import { PUBLIC_BASE_URL, providerError, startNumbersStack, type NumbersStack } from "./harness";

/**
 * Number provisioning in the Twilio simulator (server/simulators/twilio/numbers.ts), driven through the app's adapter
 * over the official `twilio` client: searching the inventory, buying with webhooks, finding, repointing, releasing,
 * a platform number seeded into the account, and calls and texts routed by the number's webhooks.
 */
let stack: NumbersStack;
const webhooks = (prefix: string) => ({ voiceUrl: `${PUBLIC_BASE_URL}/voice/${prefix}`, voiceStatusUrl: `${PUBLIC_BASE_URL}/status/${prefix}`, smsUrl: `${PUBLIC_BASE_URL}/sms/${prefix}` });

beforeAll(async () => {
  stack = await startNumbersStack();
});
afterAll(async () => {
  await stack?.stop();
});

describe("AvailablePhoneNumbers Local", () => {
  it("answers in Twilio's shape, and the official client parses it", async () => {
    const { twilio, client } = stack;
    const response = await fetch(`${twilio.origin}/2010-04-01/Accounts/${twilio.accountSid}/AvailablePhoneNumbers/US/Local.json?AreaCode=212&PageSize=2`, {
      headers: { authorization: `Basic ${Buffer.from(`${twilio.accountSid}:${twilio.authToken}`).toString("base64")}` },
    });
    expect(response.status).toBe(200);
    const body = (await response.json()) as Record<string, unknown> & { available_phone_numbers: Array<Record<string, unknown>> };
    expect(Object.keys(body).sort()).toEqual(["available_phone_numbers", "end", "first_page_uri", "next_page_uri", "page", "page_size", "previous_page_uri", "start", "uri"]);
    expect(body.available_phone_numbers).toHaveLength(2);
    expect(Object.keys(body.available_phone_numbers[0]!).sort()).toEqual(
      ["address_requirements", "beta", "capabilities", "friendly_name", "iso_country", "lata", "latitude", "locality", "longitude", "phone_number", "postal_code", "rate_center", "region"].sort(),
    );
    expect(body.available_phone_numbers[0]).toMatchObject({ phone_number: "+12125550100", friendly_name: "(212) 555-0100", region: "NY", iso_country: "US", locality: "New York", capabilities: { voice: true, SMS: true, MMS: true, fax: false } });

    const rows = await client.availablePhoneNumbers("US").local.list({ areaCode: 212, limit: 3 });
    expect(rows.map((row) => [row.phoneNumber, row.region, row.locality, row.isoCountry])).toEqual([
      ["+12125550100", "NY", "New York", "US"],
      ["+12125550101", "NY", "New York", "US"],
      ["+12125550102", "NY", "New York", "US"],
    ]);
  });

  it("filters by area code, digits (with wildcards), region and capabilities, up to the limit", async () => {
    const { provider } = stack;
    expect(await provider.searchAvailable({ country: "US", areaCode: "415", contains: "5550142", limit: 10 })).toEqual([
      { phoneNumber: "+14155550142", region: "US-CA", locality: "San Francisco", voice: true, sms: true },
    ]);
    const wildcard = await provider.searchAvailable({ country: "US", areaCode: "415", contains: "55501*7", limit: 20 });
    expect(wildcard.map((number) => number.phoneNumber)).toEqual(["+14155550107", "+14155550117", "+14155550127", "+14155550137", "+14155550147", "+14155550157", "+14155550167", "+14155550177", "+14155550187", "+14155550197"]);
    // 555-013X are voice-only: an SMS search leaves them out, a voice search keeps them.
    expect(wildcard.find((number) => number.phoneNumber === "+14155550137")).toMatchObject({ voice: true, sms: false });
    expect((await provider.searchAvailable({ country: "US", areaCode: "415", contains: "55501*7", sms: true, limit: 20 })).map((number) => number.phoneNumber)).not.toContain("+14155550137");

    const colorado = await provider.searchAvailable({ country: "US", region: "CO", limit: 250 });
    expect(colorado).toHaveLength(250);
    expect(new Set(colorado.map((number) => number.region))).toEqual(new Set(["US-CO"]));
    expect(new Set(colorado.map((number) => number.phoneNumber.slice(2, 5))).size).toBeGreaterThan(1);

    const toronto = await provider.searchAvailable({ country: "CA", areaCode: "416", limit: 1 });
    expect(toronto).toEqual([{ phoneNumber: "+14165550100", region: "CA-ON", locality: "Toronto", voice: true, sms: true }]);
    const london = await provider.searchAvailable({ country: "GB", limit: 2 });
    expect(london).toEqual([
      { phoneNumber: "+442079460000", region: null, locality: "London", voice: true, sms: false },
      { phoneNumber: "+442079460001", region: null, locality: "London", voice: true, sms: false },
    ]);
    expect(await provider.searchAvailable({ country: "US", areaCode: "416", limit: 5 }), "a Canadian area code has no US numbers").toEqual([]);
    expect(await providerError(provider.searchAvailable({ country: "FR", limit: 5 }))).toMatchObject({ code: "20404", permanent: true });
    expect(await providerError(provider.searchAvailable({ country: "US", contains: "5!", limit: 5 }))).toMatchObject({ code: "20001", permanent: true });
  });
});

describe("IncomingPhoneNumbers", () => {
  it("buys a number with its webhooks, finds it, repoints it, routes calls and texts by it, and releases it", async () => {
    const { provider, twilio, received } = stack;
    const bought = await provider.buy({ phoneNumber: "+12125550142", webhooks: webhooks("v1"), friendlyName: "Acme sales line" });
    expect(bought).toMatchObject({ phoneNumber: "+12125550142", voice: true, sms: true });
    expect(bought.providerSid).toMatch(/^PN[0-9a-f]{32}$/);
    expect(twilio.numbers.find("+12125550142")).toMatchObject({ sid: bought.providerSid, friendlyName: "Acme sales line", voiceUrl: `${PUBLIC_BASE_URL}/voice/v1`, voiceMethod: "POST", statusCallback: `${PUBLIC_BASE_URL}/status/v1`, smsUrl: `${PUBLIC_BASE_URL}/sms/v1`, source: "bought" });
    expect((await provider.searchAvailable({ country: "US", areaCode: "212", contains: "5550142", limit: 5 })).map((number) => number.phoneNumber), "a number in the account is not for sale").toEqual([]);

    expect(await providerError(provider.buy({ phoneNumber: "+12125550142", webhooks: webhooks("v1"), friendlyName: "again" }))).toMatchObject({ code: "21422", permanent: true });
    expect(await providerError(provider.buy({ phoneNumber: "+12125551234", webhooks: webhooks("v1"), friendlyName: "not in stock" }))).toMatchObject({ code: "21422", permanent: true });
    expect(await providerError(provider.buy({ phoneNumber: "+12125550143", webhooks: { ...webhooks("v1"), voiceUrl: "not a url" }, friendlyName: "bad" }))).toMatchObject({ code: "21502" });
    expect(twilio.numbers.find("+12125550143"), "nothing bought on a refused request").toBeUndefined();

    expect(await provider.findInAccount("+12125550142")).toEqual(bought);
    expect(await provider.findInAccount("+12125550199")).toBeNull();

    await provider.pointWebhooks(bought.providerSid, webhooks("v2"));
    expect(twilio.numbers.find("+12125550142")).toMatchObject({ voiceUrl: `${PUBLIC_BASE_URL}/voice/v2`, statusCallback: `${PUBLIC_BASE_URL}/status/v2`, smsUrl: `${PUBLIC_BASE_URL}/sms/v2` });

    // A person calls the number and texts it: Twilio goes where the number points now, signed.
    const call = twilio.callFrom({ from: "+13125550171", to: "+12125550142" });
    await call.done();
    const text = await twilio.messaging.receive({ from: "+13125550171", to: "+12125550142", body: "Who is this?" });
    await twilio.idle();
    expect(received.filter((hook) => hook.form.CallSid === call.sid).map((hook) => [hook.pathAndQuery, hook.form.CallStatus, hook.signed])).toEqual([
      ["/voice/v2", "ringing", true],
      ["/status/v2", "completed", true],
    ]);
    expect(received.find((hook) => hook.form.MessageSid === text.message.sid)).toMatchObject({ pathAndQuery: "/sms/v2", signed: true, form: { Body: "Who is this?", To: "+12125550142" } });
    expect(text.replies.map((reply) => reply.body)).toEqual(["Thanks"]);

    await provider.releasePurchased(bought.providerSid);
    expect(await provider.findInAccount("+12125550142")).toBeNull();
    expect(await providerError(provider.releasePurchased(bought.providerSid))).toMatchObject({ code: "20404", permanent: true });
    // Released: out of service (the carrier's intercept, nothing reaches the webhooks), and for sale again.
    const before = received.length;
    expect(() => twilio.callFrom({ from: "+13125550171", to: "+12125550142" })).toThrow(SimNumberNotInServiceError);
    await expect(twilio.messaging.receive({ from: "+13125550171", to: "+12125550142", body: "Hello?" })).rejects.toThrow(SimNumberNotInServiceError);
    expect(received.length).toBe(before);
    expect((await provider.searchAvailable({ country: "US", areaCode: "212", contains: "5550142", limit: 5 })).map((number) => number.phoneNumber)).toEqual(["+12125550142"]);
  });

  it("buys by area code, and says when an area code has nothing left or is not one", async () => {
    const { client, twilio } = stack;
    const bought = await client.incomingPhoneNumbers.create({ areaCode: "808", voiceUrl: `${PUBLIC_BASE_URL}/voice/hi` });
    expect(bought).toMatchObject({ phoneNumber: "+18085550100", voiceUrl: `${PUBLIC_BASE_URL}/voice/hi`, capabilities: { voice: true, sms: true, mms: true, fax: false }, status: "in-use" });
    for (let line = 101; line < 200; line += 1) twilio.addAccountNumber(`+1808555${String(line).padStart(4, "0")}`);
    await expect(client.incomingPhoneNumbers.create({ areaCode: "808" })).rejects.toMatchObject({ status: 400, code: 21452 });
    await expect(client.incomingPhoneNumbers.create({ areaCode: "999" })).rejects.toMatchObject({ status: 400, code: 21451 });
    const listed = await client.incomingPhoneNumbers.list({ phoneNumber: "+1808555", pageSize: 30 });
    expect(listed, "the client pages through the account's numbers").toHaveLength(100);
  });

  it("finds the account's number itself, not a longer one its digits begin (IncomingPhoneNumbers matches partial numbers)", async () => {
    const { provider, twilio } = stack;
    const longer = twilio.addAccountNumber("+493012345678");
    const shorter = twilio.addAccountNumber("+49301234567");
    expect((await provider.findInAccount("+49301234567"))?.providerSid).toBe(shorter.sid);
    expect((await provider.findInAccount("+493012345678"))?.providerSid).toBe(longer.sid);
    expect(await provider.findInAccount("+4930123456")).toBeNull();
  });

  it("holds platform numbers nobody bought through the API, and routes to them once they point somewhere", async () => {
    const { provider, twilio, received } = stack;
    const seeded = twilio.addAccountNumber("+13125550100", { voice: true, sms: false });
    expect(seeded.source).toBe("seeded");
    expect(await provider.findInAccount("+13125550100")).toMatchObject({ providerSid: seeded.sid, voice: true, sms: false });
    expect((await provider.searchAvailable({ country: "US", areaCode: "312", limit: 1 })).map((number) => number.phoneNumber)).toEqual(["+13125550101"]);
    expect(() => twilio.callFrom({ from: "+12025550171", to: "+13125550100" }), "no voice URL yet").toThrow(/no VoiceUrl/);
    await provider.pointWebhooks(seeded.sid, webhooks("platform"));
    const call = twilio.callFrom({ from: "+12025550171", to: "+13125550100" });
    await call.done();
    await twilio.idle();
    expect(received.filter((hook) => hook.form.CallSid === call.sid).map((hook) => hook.pathAndQuery)).toEqual(["/voice/platform", "/status/platform"]);
    await expect(twilio.messaging.receive({ from: "+12025550171", to: "+13125550100", body: "Hi" }), "a voice-only number takes no texts").rejects.toThrow(/not SMS-capable/);
    // A test that names the webhook itself still reaches it, whatever the account holds (the older call sites).
    const direct = await twilio.messaging.receive({ from: "+12025550171", to: "+19995550100", body: "Hi", url: `${PUBLIC_BASE_URL}/sms/direct` });
    expect(direct.status).toBe(200);
  });
});
