import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VALIDATION_CALLER } from "@/server/simulators/twilio";
import { PUBLIC_BASE_URL, providerError, startNumbersStack, type NumbersStack } from "./harness";

/**
 * Caller-ID validation in the Twilio simulator (server/simulators/twilio/caller-ids.ts) through the app's adapter: the
 * validation request and its code, Twilio's call, the signed status callback checked with the app's verifier, the
 * OutgoingCallerId it creates, 21450 for a number already validated, and the failures (wrong code, no answer).
 */
let stack: NumbersStack;

beforeAll(async () => {
  // Slow enough that the test sees a validation call before it ends (6 s of media in 0.6 s).
  stack = await startNumbersStack({ speed: 10 });
});
afterAll(async () => {
  await stack?.stop();
});

const validationHooks = (stack: NumbersStack, callSid: string | null) => stack.received.filter((hook) => hook.pathAndQuery.startsWith("/validation") && (hook.form.CallSid === callSid || hook.pathAndQuery.includes(`CallSid=${callSid}`)));

describe("caller-ID validation", () => {
  it("the callee keys the code in: a signed success callback, an OutgoingCallerId, 21450 on a second request, removal", async () => {
    const { provider, twilio } = stack;
    const started = await provider.startCallerIdValidation({ phoneNumber: "+14155550177", friendlyName: "Dana's desk", statusCallback: `${PUBLIC_BASE_URL}/validation` });
    expect(started.validationCode).toMatch(/^\d{6}$/);
    expect(started.providerCallId).toMatch(/^CA[0-9a-f]{32}$/);
    expect(twilio.callerIds.validations.at(-1)).toMatchObject({ phoneNumber: "+14155550177", validationCode: started.validationCode, status: "calling" });
    expect(await provider.findCallerId("+14155550177"), "not verified before the call").toBeNull();

    await twilio.idle();
    const [hook, ...more] = validationHooks(stack, started.providerCallId);
    expect(more).toEqual([]);
    const callerId = await provider.findCallerId("+14155550177");
    expect(callerId?.providerSid).toMatch(/^PN[0-9a-f]{32}$/);
    expect(hook).toMatchObject({
      method: "POST",
      signed: true,
      form: { AccountSid: twilio.accountSid, CallSid: started.providerCallId, CallStatus: "completed", To: "+14155550177", Called: "+14155550177", From: VALIDATION_CALLER, VerificationStatus: "success", OutgoingCallerIdSid: callerId!.providerSid },
    });
    // The app's verifier refuses the same callback with a field changed.
    expect(stack.isSigned({ pathAndQuery: hook!.pathAndQuery, signature: hook!.signature, form: { ...hook!.form, VerificationStatus: "failed" } })).toBe(false);
    expect(twilio.callbacks.filter((entry) => entry.kind === "caller-id-validation" && entry.params.CallSid === started.providerCallId)).toHaveLength(1);

    const caller = await stack.client.outgoingCallerIds(callerId!.providerSid).fetch();
    expect(caller).toMatchObject({ phoneNumber: "+14155550177", friendlyName: "Dana's desk", accountSid: twilio.accountSid });
    expect(await providerError(provider.startCallerIdValidation({ phoneNumber: "+14155550177", friendlyName: "again", statusCallback: `${PUBLIC_BASE_URL}/validation` }))).toMatchObject({ code: "21450", permanent: true });

    await provider.removeCallerId(callerId!.providerSid);
    expect(await provider.findCallerId("+14155550177")).toBeNull();
    expect(await providerError(provider.removeCallerId(callerId!.providerSid))).toMatchObject({ code: "20404" });
  });

  it("a wrong code or no answer fails the validation: a signed failed callback and no caller ID", async () => {
    const { provider, twilio } = stack;
    twilio.setCallerIdValidation("+14155550178", "wrong-code");
    twilio.setCallerIdValidation("+14155550179", "no-answer");
    const wrong = await provider.startCallerIdValidation({ phoneNumber: "+14155550178", friendlyName: "wrong", statusCallback: `${PUBLIC_BASE_URL}/validation` });
    const unanswered = await provider.startCallerIdValidation({ phoneNumber: "+14155550179", friendlyName: "away", statusCallback: `${PUBLIC_BASE_URL}/validation` });
    await twilio.idle();
    for (const [started, callStatus] of [
      [wrong, "completed"],
      [unanswered, "no-answer"],
    ] as const) {
      const hooks = validationHooks(stack, started.providerCallId);
      expect(hooks).toHaveLength(1);
      expect(hooks[0]).toMatchObject({ signed: true, form: { VerificationStatus: "failed", CallStatus: callStatus } });
      expect(hooks[0]!.form).not.toHaveProperty("OutgoingCallerIdSid");
    }
    expect(await provider.findCallerId("+14155550178")).toBeNull();
    expect(await provider.findCallerId("+14155550179")).toBeNull();
    // Told to key the code in after all, the next attempt succeeds.
    twilio.setCallerIdValidation("+14155550178", "enters-code");
    await provider.startCallerIdValidation({ phoneNumber: "+14155550178", friendlyName: "wrong", statusCallback: `${PUBLIC_BASE_URL}/validation` });
    await twilio.idle();
    expect(await provider.findCallerId("+14155550178")).not.toBeNull();
  });

  it("a GET status callback is signed over its URL with the parameters in the query; bad requests are refused", async () => {
    const { client, twilio } = stack;
    const started = await client.validationRequests.create({ phoneNumber: "+14155550180", statusCallback: `${PUBLIC_BASE_URL}/validation?source=get`, statusCallbackMethod: "GET", callDelay: 2 });
    await twilio.idle();
    const [hook] = validationHooks(stack, started.callSid);
    expect(hook).toMatchObject({ method: "GET", signed: true, form: {} });
    expect(new URL(hook!.pathAndQuery, PUBLIC_BASE_URL).searchParams.get("VerificationStatus")).toBe("success");
    await expect(client.validationRequests.create({ phoneNumber: "555-0100" })).rejects.toMatchObject({ status: 400, code: 21217 });
    await expect(client.validationRequests.create({ phoneNumber: "+14155550181", statusCallback: "nowhere" })).rejects.toMatchObject({ status: 400, code: 21456 });
    await expect(client.validationRequests.create({ phoneNumber: "+14155550181", callDelay: 61 })).rejects.toMatchObject({ status: 400 });
  });
});
