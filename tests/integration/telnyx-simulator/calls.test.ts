import { afterAll, beforeAll, describe, expect, it } from "vitest";
import Telnyx from "telnyx";
import { PHONE_MENU } from "@/server/simulators/voice-script";
import { apiError, CONNECTION_ID, PUBLIC_ORIGIN, STREAM_URL, startTelnyxStack, waitFor, type TelnyxStack } from "./harness";

/**
 * The Telnyx simulator's Call Control (server/simulators/telnyx), driven only through the official `telnyx` client:
 * dial → call.initiated / call.answered / AMD by the dialed number's last digit → hangup, the 90018 error for a command
 * to an ended call, and a wrong API key refused as Telnyx does.
 */
let stack: TelnyxStack;

beforeAll(async () => {
  stack = await startTelnyxStack({ speed: 8 });
});
afterAll(async () => {
  await stack?.stop();
});

const FROM = "+12125550142";
const dial = (to: string, extra: Record<string, unknown> = {}) =>
  stack.client.calls.dial({ connection_id: CONNECTION_ID, from: FROM, to, webhook_url: `${PUBLIC_ORIGIN}/telnyx/voice`, ...extra });

describe("Telnyx simulator: calls", () => {
  it("refuses a wrong API key with 401 and error 10009", async () => {
    const wrong = new Telnyx({ apiKey: "KEY-wrong", baseURL: stack.telnyx.baseURL, maxRetries: 0 });
    expect(await apiError(wrong.calls.dial({ connection_id: CONNECTION_ID, from: FROM, to: "+14155550100" }))).toEqual({ status: 401, codes: ["10009"] });
    expect(stack.telnyx.calls.size).toBe(0);
  });

  it("a person (last digit 0) with AMD `detect`: initiated, answered, human; our hangup ends it, then commands get 422 90018", async () => {
    const { data } = await dial("+14155550100", { answering_machine_detection: "detect", client_state: Buffer.from("contact-1").toString("base64") });
    expect(data).toMatchObject({ record_type: "call", is_alive: false });
    expect(data!.call_control_id).toMatch(/^v3:/);
    const id = data!.call_control_id;
    const amd = await stack.webhook("call.machine.detection.ended", id);
    expect(amd.event.data.payload).toMatchObject({ result: "human", call_leg_id: data!.call_leg_id, client_state: Buffer.from("contact-1").toString("base64") });
    expect((await stack.client.calls.retrieveStatus(id)).data).toMatchObject({ is_alive: true });
    expect((await stack.client.calls.actions.hangup(id, {})).data).toEqual({ result: "ok" });
    const hangup = await stack.webhook("call.hangup", id);
    expect(hangup.event.data.payload).toMatchObject({ hangup_cause: "normal_clearing", hangup_source: "caller", state: "hangup" });
    expect(stack.events(id)).toEqual(["call.initiated", "call.answered", "call.machine.detection.ended", "call.hangup"]);
    expect(hangup.event).toMatchObject({ data: { record_type: "event" }, meta: { attempt: 1, delivered_to: `${PUBLIC_ORIGIN}/telnyx/voice` } });

    expect(await apiError(stack.client.calls.actions.hangup(id, {}))).toEqual({ status: 422, codes: ["90018"] });
    expect(await apiError(stack.client.calls.actions.sendDtmf(id, { digits: "1" }))).toEqual({ status: 422, codes: ["90018"] });
    expect((await stack.client.calls.retrieveStatus(id)).data).toMatchObject({ is_alive: false });
  });

  it("voicemail (last digit 2): `greeting_end` reports machine, then the greeting's end at the beep", { timeout: 30_000 }, async () => {
    const { data } = await dial("+14155550102", { answering_machine_detection: "greeting_end" });
    const id = data!.call_control_id;
    expect((await stack.webhook("call.machine.detection.ended", id)).event.data.payload.result).toBe("machine");
    expect((await stack.webhook("call.machine.greeting.ended", id, 20_000)).event.data.payload.result).toBe("beep_detected");
    await stack.client.calls.actions.hangup(id, {});
    await stack.webhook("call.hangup", id);
  });

  it("premium AMD: human_residence for a person, machine and the premium greeting end for voicemail, an override for silence", { timeout: 30_000 }, async () => {
    const person = (await dial("+14155550110", { answering_machine_detection: "premium" })).data!.call_control_id;
    const machine = (await dial("+14155550112", { answering_machine_detection: "premium" })).data!.call_control_id;
    stack.telnyx.setAmdResult("+14155550120", { premium: "silence" });
    const silent = (await dial("+14155550120", { answering_machine_detection: "premium" })).data!.call_control_id;
    expect((await stack.webhook("call.machine.premium.detection.ended", person)).event.data.payload.result).toBe("human_residence");
    expect((await stack.webhook("call.machine.premium.detection.ended", machine)).event.data.payload.result).toBe("machine");
    expect((await stack.webhook("call.machine.premium.greeting.ended", machine, 20_000)).event.data.payload.result).toBe("beep_detected");
    expect((await stack.webhook("call.machine.premium.detection.ended", silent)).event.data.payload.result).toBe("silence");
    for (const id of [person, machine, silent]) await stack.client.calls.actions.hangup(id, {});
    expect(stack.events(person)).not.toContain("call.machine.detection.ended");
  });

  it("busy (3), invalid (6) and failed (7) numbers end unanswered with their causes and SIP codes", async () => {
    const ids = await Promise.all(["+14155550103", "+14155550106", "+14155550107"].map(async (to) => (await dial(to)).data!.call_control_id));
    const causes = await Promise.all(ids.map(async (id) => (await stack.webhook("call.hangup", id)).event.data.payload));
    expect(causes.map((payload) => [payload.hangup_cause, payload.sip_hangup_cause])).toEqual([
      ["user_busy", "486"],
      ["not_found", "404"],
      ["unspecified", "503"],
    ]);
    for (const id of ids) expect(stack.events(id)).toEqual(["call.initiated", "call.hangup"]);
  });

  it("refuses a dial without connection_id or with a malformed number, as Telnyx's 422 errors", async () => {
    expect(await apiError(dial("415-555-0100"))).toEqual({ status: 422, codes: ["10016"] });
    expect(await apiError(stack.client.calls.dial({ connection_id: "", from: FROM, to: "+14155550100" }))).toEqual({ status: 422, codes: ["10004"] });
    expect(await apiError(dial("+14155550100", { answering_machine_detection: "guess" as "detect" }))).toEqual({ status: 422, codes: ["10015"] });
  });

  it("the callee's key presses arrive as call.dtmf.received, one per digit", async () => {
    const id = (await dial("+14155550130")).data!.call_control_id;
    await stack.webhook("call.answered", id);
    await stack.telnyx.pressKeys(id, "42");
    await waitFor(() => stack.received.filter((hook) => hook.event.data.event_type === "call.dtmf.received" && hook.event.data.payload.call_control_id === id).length === 2, "two dtmf webhooks");
    const digits = stack.received.filter((hook) => hook.event.data.event_type === "call.dtmf.received" && hook.event.data.payload.call_control_id === id).map((hook) => hook.event.data.payload.digit);
    expect(digits).toEqual(["4", "2"]);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("commands on a live call: streaming_start, send_dtmf, transfer; record-from-answer saved after the hangup (digit 9: its media is gone)", { timeout: 30_000 }, async () => {
    const { data } = await dial("+14155550109", { record: "record-from-answer", record_channels: "single" });
    const id = data!.call_control_id;
    expect(data!.recording_id).toMatch(/^[0-9a-f-]{36}$/);
    await stack.webhook("call.answered", id);
    expect((await stack.client.calls.actions.startStreaming(id, { stream_url: STREAM_URL, stream_track: "inbound_track" })).data).toEqual({ result: "ok" });
    expect((await stack.webhook("streaming.started", id)).event.data.payload.stream_url).toBe(STREAM_URL);
    expect((await stack.client.calls.actions.sendDtmf(id, { digits: "1#" })).data).toEqual({ result: "ok" });
    expect(await apiError(stack.client.calls.actions.sendDtmf(id, { digits: "1x" }))).toEqual({ status: 422, codes: ["10015"] });
    expect(await apiError(stack.client.calls.actions.transfer(id, { to: "extension 12" }))).toEqual({ status: 422, codes: ["10016"] });
    expect((await stack.client.calls.actions.transfer(id, { to: "+14155550244" })).data).toEqual({ result: "ok" });
    await stack.webhook("streaming.stopped", id);
    expect(stack.telnyx.calls.get(id)!.events).toEqual(expect.arrayContaining(["dtmf-sent:1#", "transferred:+14155550244"]));
    await stack.client.calls.actions.hangup(id, {});
    const saved = await stack.webhook("call.recording.saved", id);
    expect(saved.event.data.payload).toMatchObject({ channels: "single", recording_urls: { wav: expect.stringMatching(/\/recordings\/[0-9a-f-]{36}\.wav$/) } });
    expect(stack.events(id).indexOf("call.recording.saved")).toBeGreaterThan(stack.events(id).indexOf("call.hangup"));
    const response = await fetch((saved.event.data.payload.recording_urls as { wav: string }).wav);
    expect(response.status).toBe(404);
  });

  it("a phone menu: AMD says not_sure; send_dtmf 1 routes it to the sales desk, who speaks", { timeout: 30_000 }, async () => {
    stack.telnyx.setCallee("+14155550160", PHONE_MENU);
    const id = (await dial("+14155550160", { answering_machine_detection: "detect" })).data!.call_control_id;
    expect((await stack.webhook("call.machine.detection.ended", id)).event.data.payload.result).toBe("not_sure");
    await stack.client.calls.actions.sendDtmf(id, { digits: "1" });
    const call = stack.telnyx.calls.get(id)!;
    await waitFor(() => call.calleeSpans.some((span) => span.clip === "person.sales-hello"), "the sales desk's hello", 20_000);
    await stack.client.calls.actions.hangup(id, {});
  });

  it("a declined call is call_rejected (603); nobody answering is timeout after timeout_secs; time_limit_secs ends a long call", { timeout: 30_000 }, async () => {
    stack.telnyx.setCallee("+14155550170", { kind: "declined" });
    stack.telnyx.setCallee("+14155550180", { kind: "no-answer" });
    const declined = (await dial("+14155550170")).data!.call_control_id;
    const unanswered = (await dial("+14155550180", { timeout_secs: 5 })).data!.call_control_id;
    const limited = (await dial("+14155550190", { time_limit_secs: 3 })).data!.call_control_id;
    const payload = async (id: string) => (await stack.webhook("call.hangup", id, 20_000)).event.data.payload;
    expect(await payload(declined)).toMatchObject({ hangup_cause: "call_rejected", sip_hangup_cause: "603", hangup_source: "callee" });
    expect(await payload(unanswered)).toMatchObject({ hangup_cause: "timeout", sip_hangup_cause: "487" });
    expect(await payload(limited)).toMatchObject({ hangup_cause: "time_limit" });
    expect(stack.telnyx.calls.get(limited)!.mediaMs).toBe(3000);
    expect(stack.events(unanswered)).toEqual(["call.initiated", "call.hangup"]);
  });
});
