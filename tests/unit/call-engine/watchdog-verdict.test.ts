import { describe, expect, it } from "vitest";
import { callingVerdict, UNVERIFIABLE_GIVE_UP_SECONDS } from "@/server/services/call-engine/watchdog";

const NOW = new Date("2026-03-02T15:30:00Z");
const params = { now: NOW, lastSignOfLifeAt: new Date(NOW.getTime() - 10 * 60_000), lateEventsSeconds: 300 };
const endedSecondsAgo = (seconds: number) =>
  ({ state: "ended", endedAt: new Date(NOW.getTime() - seconds * 1000).toISOString(), disposition: "answered", durationSeconds: 42 }) as const;

describe("the watchdog's rule for a silent call in the air", () => {
  it("waits while the provider says the call is in the air, however long it has been silent", () => {
    expect(callingVerdict({ ok: true, state: { state: "active" } }, { ...params, lastSignOfLifeAt: new Date(0) })).toMatchObject({ action: "wait" });
  });

  it("fails only a call the provider has no record of", () => {
    expect(callingVerdict({ ok: true, state: { state: "unknown" } }, params)).toMatchObject({ action: "fail", reason: expect.stringContaining("no record of the call") });
  });

  it("gives an ended call's report the late-events grace, then ends it with the provider's result", () => {
    expect(callingVerdict({ ok: true, state: endedSecondsAgo(299) }, params)).toMatchObject({ action: "wait" });
    expect(callingVerdict({ ok: true, state: endedSecondsAgo(300) }, params)).toEqual({ action: "end-from-provider", state: endedSecondsAgo(300) });
  });

  it("waits while the provider cannot be asked, and fails the call only a day after its last sign of life", () => {
    const down = { ok: false as const, error: "connect ECONNREFUSED" };
    expect(callingVerdict(down, params)).toMatchObject({ action: "wait", reason: expect.stringContaining("ECONNREFUSED") });
    const dayAgo = new Date(NOW.getTime() - UNVERIFIABLE_GIVE_UP_SECONDS * 1000);
    expect(callingVerdict(down, { ...params, lastSignOfLifeAt: new Date(dayAgo.getTime() + 1000) })).toMatchObject({ action: "wait" });
    expect(callingVerdict(down, { ...params, lastSignOfLifeAt: dayAgo })).toMatchObject({ action: "fail", reason: expect.stringContaining("could not be asked") });
  });
});
