import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { AnswerRates } from "@/server/simulators/twilio/answer-rate";
import { CALLEE_SCENARIOS } from "@/server/simulators/voice-script";
import { PUBLIC_BASE_URL, startNumbersStack, type NumbersStack } from "./harness";

/**
 * A caller ID's answer rate in the Twilio simulator (server/simulators/twilio/answer-rate.ts): calls placed through the
 * official client from a number set to 5 % are picked up about 10 times in 200 (the same count for the same seed),
 * the others ring out; calls from other numbers keep the last-digit scenarios.
 */
let stack: NumbersStack;

beforeAll(async () => {
  stack = await startNumbersStack({ speed: 200 });
});
afterAll(async () => {
  await stack?.stop();
});

/** People whose number alone answers (last digit 0: a person who books), 555-1000 … in steps of 10. */
const person = (index: number) => `+1415555${String(1000 + index * 10).padStart(4, "0")}`;

/** Places `count` calls from `from` through the client (20 at a time) and returns how many were answered. */
async function placeCalls(from: string, count: number, offset = 0): Promise<{ answered: number; noAnswer: number; sids: string[] }> {
  const { client, twilio } = stack;
  const sids: string[] = [];
  for (let start = 0; start < count; start += 20) {
    const batch = Array.from({ length: Math.min(20, count - start) }, (_, i) =>
      client.calls.create({ from, to: person(offset + start + i), twiml: "<Response><Hangup/></Response>", timeout: 5, statusCallback: `${PUBLIC_BASE_URL}/status/rate` }),
    );
    sids.push(...(await Promise.all(batch)).map((call) => call.sid));
  }
  await twilio.idle();
  const placed = new Set(sids);
  const calls = (await client.calls.list({ from })).filter((call) => placed.has(call.sid));
  expect(calls).toHaveLength(count);
  return { answered: calls.filter((call) => call.status === "completed").length, noAnswer: calls.filter((call) => call.status === "no-answer").length, sids };
}

describe("answer rate by caller ID", () => {
  it("200 calls from a number answered at 5 %: about 10 picked up, the rest no-answer, the same count for the same seed", { timeout: 120_000 }, async () => {
    const { twilio } = stack;
    twilio.setAnswerRate("+12125550150", 0.05, { seed: 7 });
    const first = await placeCalls("+12125550150", 200);
    expect(first.answered + first.noAnswer).toBe(200);
    expect(first.answered).toBeGreaterThanOrEqual(4);
    expect(first.answered).toBeLessThanOrEqual(16);

    // Deterministic: the same seed draws the same sequence, so 200 calls from it are picked up as often every time.
    const rates = new AnswerRates();
    rates.set("+12125550150", 0.05, { seed: 7 });
    const drawn = Array.from({ length: 200 }, () => rates.scenarioFor("+12125550150", CALLEE_SCENARIOS[0]!).kind).filter((kind) => kind === "human").length;
    expect(first.answered).toBe(drawn);

    // The status callbacks say so, as Twilio's would.
    const statuses = twilio.callbacks.filter((entry) => entry.kind === "status" && first.sids.includes(entry.params.CallSid ?? "")).map((entry) => entry.params.CallStatus);
    expect(statuses.filter((status) => status === "no-answer")).toHaveLength(first.noAnswer);
  });

  it("other caller IDs keep the last-digit scenarios; a rate can send the unanswered to voicemail, and be removed", { timeout: 60_000 }, async () => {
    const { twilio } = stack;
    const other = await placeCalls("+12125550151", 20);
    expect(other).toMatchObject({ answered: 20, noAnswer: 0 });

    twilio.setAnswerRate("+12125550152", 0, { unanswered: "voicemail" });
    const voicemail = await placeCalls("+12125550152", 5);
    expect(voicemail.sids.map((sid) => twilio.calls.get(sid)?.scenario.kind)).toEqual(["machine", "machine", "machine", "machine", "machine"]);

    // A busy line is busy whoever calls.
    const busy = await stack.client.calls.create({ from: "+12125550152", to: "+14155551003", twiml: "<Response><Hangup/></Response>" });
    await twilio.idle();
    expect((await stack.client.calls(busy.sid).fetch()).status).toBe("busy");

    twilio.setAnswerRate("+12125550152", null);
    expect(await placeCalls("+12125550152", 5)).toMatchObject({ answered: 5, noAnswer: 0 });
    expect(() => twilio.setAnswerRate("+12125550152", 1.5)).toThrow(/between 0 and 1/);
  });
});
