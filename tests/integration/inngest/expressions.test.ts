import { describe, expect, it } from "vitest";
import { parseDuration, resolveWakeTime } from "@/inngest/embedded/durations";
import { bindConditions, evaluateConditions, evaluateValue, ExpressionError, parseCondition, parseValue } from "@/inngest/embedded/expressions";

describe("expression subset", () => {
  const event = { name: "a", data: { id: "c1", n: 2, nested: { flag: true }, kind: "vip" } };

  it("evaluates event/async equalities, literals and &&", () => {
    const match = parseCondition("event.data.id == async.data.id");
    expect(evaluateConditions(match, { event, async: { data: { id: "c1" } } })).toBe(true);
    expect(evaluateConditions(match, { event, async: { data: { id: "c2" } } })).toBe(false);
    expect(evaluateConditions(match, { event, async: { data: {} } })).toBe(false);
    expect(evaluateConditions(parseCondition("event.data.kind == 'vip' && event.data.n == 2"), { event })).toBe(true);
    expect(evaluateConditions(parseCondition("(event.data.nested.flag == true) && event.data['kind'] != \"x\""), { event })).toBe(true);
    expect(evaluateConditions(parseCondition("event.data.missing != 'x'"), { event })).toBe(false);
  });

  it("binds the run's event so a waiter only depends on the incoming event", () => {
    const bound = bindConditions(parseCondition("event.data.id == async.data.id"), "event", event);
    expect(bound[0]!.left).toEqual({ kind: "literal", value: "c1" });
    expect(evaluateConditions(bound, { async: { data: { id: "c1" } } })).toBe(true);
  });

  it("refuses everything else with a clear error", () => {
    for (const expression of ["event.data.n > 1", "event.data.a == 1 || event.data.b == 2", "!event.data.flag", "size(event.data.list) == 1", "foo.bar == 1", "event.data.a"]) {
      expect(() => parseCondition(expression), expression).toThrow(ExpressionError);
    }
    expect(() => parseCondition("event.data.n > 1")).toThrow(/Unsupported expression "event.data.n > 1"/);
  });

  it("builds keys from paths and literals", () => {
    expect(evaluateValue(parseValue("event.data.id"), { event })).toBe("c1");
    expect(evaluateValue(parseValue("event.data.id + '-' + event.data.n"), { event })).toBe("c1-2");
    expect(() => parseValue("event.data.id == 1")).toThrow(ExpressionError);
  });
});

describe("durations", () => {
  it("parses the SDK's time strings and ISO dates", () => {
    expect(parseDuration("1d")).toBe(86_400_000);
    expect(parseDuration("2h30m10s")).toBe(9_010_000);
    expect(parseDuration("1w")).toBe(604_800_000);
    expect(parseDuration("2026-01-01T00:00:00Z")).toBeNull();
    const now = new Date("2026-01-01T00:00:00Z");
    expect(resolveWakeTime("1h", now)).toEqual(new Date("2026-01-01T01:00:00Z"));
    expect(resolveWakeTime("2026-02-01T00:00:00.000Z", now)).toEqual(new Date("2026-02-01T00:00:00Z"));
    expect(() => resolveWakeTime("soon", now)).toThrow(/Invalid time/);
  });
});
