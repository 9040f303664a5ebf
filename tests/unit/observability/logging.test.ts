import { describe, expect, it } from "vitest";
import { getLogger } from "@/server/observability/logger";
import { maskPhoneNumber, scrubText } from "@/server/observability/redact";
import { captureLogs } from "@/tests/helpers/logs";
import { findLogLeaks } from "@/tests/setup/log-scan";

const KEY = `ock_${"a1b2c3d4"}${"e".repeat(32)}`;
const SECRET = `whsec_${"Q".repeat(32)}`;

describe("log masking (server/observability/redact.ts)", () => {
  it("masks phone numbers to their last 4 digits", () => {
    expect(maskPhoneNumber("+14155550171")).toBe("+*******0171");
    expect(maskPhoneNumber("123")).toBe("****");
    expect(scrubText("dialing +14155550171 now")).toBe("dialing +*******0171 now");
  });

  it("cuts API keys to their prefix and removes webhook secrets inside any text", () => {
    expect(scrubText(`key ${KEY} used`)).toBe("key ock_a1b2c3d4… used");
    expect(scrubText(`secret ${SECRET}`)).toBe("secret whsec_[redacted]");
  });
});

describe("the logger's lines", () => {
  it("are one JSON object per line with level, time, component and message, secrets and numbers masked", () => {
    const logs = captureLogs();
    getLogger("unit-test").warn(
      { phoneNumber: "+14155550171", apiKey: KEY, nested: { to: "+12025550123", note: `called +442071838750 with ${KEY}` } },
      `message mentioning +14155550171 and ${SECRET}`,
    );
    const lines = logs.lines();
    expect(lines).toHaveLength(1);
    const line = lines[0]!;
    expect(line).toMatchObject({ level: "warn", component: "unit-test", phoneNumber: "+*******0171", apiKey: "[redacted]" });
    expect(line.nested).toEqual({ to: "+*******0123", note: "called +********8750 with ock_a1b2c3d4…" });
    expect(line.msg).toBe("message mentioning +*******0171 and whsec_[redacted]");
    expect(new Date(line.time).toString()).not.toBe("Invalid Date");
    expect(findLogLeaks(logs.text())).toEqual([]);
  });

  it("censors secret fields and masks phone fields at any depth, whatever their case", () => {
    const logs = captureLogs();
    getLogger("unit-test").info({ req: { headers: { "X-Api-Key": "not-a-key-shape", authorization: "Bearer abc", host: "h" } }, deep: { a: { b: { password: "p", phone: "(415) 555-0171" } } } }, "headers");
    const [line] = logs.lines();
    expect(line!.req).toEqual({ headers: { "X-Api-Key": "[redacted]", authorization: "[redacted]", host: "h" } });
    expect(line!.deep).toEqual({ a: { b: { password: "[redacted]", phone: "******0171" } } });
  });

  it("the suite's log scan finds what the logger would have masked", () => {
    const leaks = findLogLeaks(`{"msg":"${KEY}"}\n{"to":"+14155550171"}\n{"s":"${SECRET}"}\n{"ok":"+*******0171"}`);
    expect(leaks.map((leak) => [leak.line, leak.kind])).toEqual([
      [1, "API key"],
      [2, "phone number"],
      [3, "webhook secret"],
    ]);
  });
});
