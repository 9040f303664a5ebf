import { mkdtempSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import { DateTime } from "luxon";
import { afterEach, beforeAll, describe, expect, it } from "vitest";
import { useTestDb } from "@/tests/helpers/db";
import { callStep, callsOf, createEngineOrganization, enroll, sequenceOf, startCallEngine, type CallEngineHarness } from "./harness";

const db = useTestDb();
let engine: CallEngineHarness | null = null;

beforeAll(() => {
  process.env.DATA_DIR = mkdtempSync(path.join(os.tmpdir(), "call-engine-scheduling-"));
});
afterEach(async () => {
  await engine?.stop();
  engine = null;
});

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const NINE_TO_FIVE = { startTime: 540, endTime: 1020 };

function local(instant: Date | null, zone: string): string {
  return DateTime.fromJSDate(instant!, { zone }).toFormat("yyyy-MM-dd HH:mm");
}

describe("call engine: when calls are dialed", () => {
  it("dials each contact at the opening of the window in the contact's own timezone", async () => {
    const start = new Date("2026-03-02T03:00:00Z"); // Sun 22:00 New York, Mon 04:00 Berlin, Sun 19:00 Los Angeles
    engine = await startCallEngine(db, { start });
    const { agent } = await createEngineOrganization(db, { steps: [callStep({ window: NINE_TO_FIVE })] });
    const zones = ["America/New_York", "Europe/Berlin", "America/Los_Angeles"];
    const enrolled = [];
    for (const [index, zone] of zones.entries()) enrolled.push(await enroll(db, { agent, phoneNumber: `+120255502${index}1`, timezone: zone, now: start }));
    await engine.settle();
    for (const created of enrolled) expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Scheduled");
    await engine.advance(DAY);
    for (const [index, zone] of zones.entries()) {
      const [call] = await callsOf(db, enrolled[index]!.sequenceId);
      expect(local(call!.dialedAt, zone)).toBe("2026-03-02 09:00");
      expect(call!.resultType).toBe("Goal Not Completed");
    }
  });

  it("keeps windows on local wall-clock time across DST changes (spring forward and fall back)", async () => {
    const steps = [callStep({ window: NINE_TO_FIVE }), callStep({ window: NINE_TO_FIVE, dayOffset: 1 })];
    for (const [firstDay, expectedSecondUtc] of [
      ["2026-03-07", "2026-03-08T13:00:00.000Z"], // Sun 09:00 EDT (UTC-4); the day before was EST (UTC-5)
      ["2026-10-31", "2026-11-01T14:00:00.000Z"], // Sun 09:00 EST (UTC-5); the day before was EDT (UTC-4)
    ] as const) {
      const start = DateTime.fromISO(`${firstDay}T08:00`, { zone: "America/New_York" }).toJSDate();
      engine = await startCallEngine(db, { start });
      const { agent } = await createEngineOrganization(db, { steps });
      const created = await enroll(db, { agent, phoneNumber: "+12025550211", now: start });
      await engine.advance(2 * DAY);
      const [first, second] = await callsOf(db, created.sequenceId);
      expect(local(first!.dialedAt, "America/New_York")).toBe(`${firstDay} 09:00`);
      expect(second!.dialedAt!.toISOString()).toBe(expectedSecondUtc);
      expect(local(second!.dialedAt, "America/New_York").slice(11)).toBe("09:00");
      await engine.stop();
      engine = null;
    }
  });

  it("reads `agent`-sourced windows in the agent's first timezone", async () => {
    const start = new Date("2026-03-02T12:00:00Z"); // 21:00 in Tokyo
    engine = await startCallEngine(db, { start });
    const { agent } = await createEngineOrganization(db, { timezones: ["Asia/Tokyo"], steps: [callStep({ window: NINE_TO_FIVE, timezoneSource: "agent" })] });
    const created = await enroll(db, { agent, phoneNumber: "+12025550221", timezone: "America/New_York", now: start });
    await engine.advance(DAY);
    expect(local((await callsOf(db, created.sequenceId))[0]!.dialedAt, "Asia/Tokyo")).toBe("2026-03-03 09:00");
  });

  it("applies dayOffset: the next step waits for local midnight that many days later, then its window", async () => {
    const start = new Date("2026-03-02T15:00:00Z"); // Mon 10:00 New York
    engine = await startCallEngine(db, { start });
    const { agent } = await createEngineOrganization(db, {
      steps: [callStep({ window: { startTime: 600, endTime: 720 } }), callStep({ window: { startTime: 600, endTime: 720 }, dayOffset: 2 })],
    });
    const created = await enroll(db, { agent, phoneNumber: "+12025550231", now: start });
    await engine.advance(3 * DAY);
    const [first, second] = await callsOf(db, created.sequenceId);
    expect(local(first!.dialedAt, "America/New_York")).toBe("2026-03-02 10:00");
    expect(local(second!.dialedAt, "America/New_York")).toBe("2026-03-04 10:00");
    expect((await sequenceOf(db, created.sequenceId)).lifecycleStatus).toBe("done");
  });

  it("waits delaySeconds plus a jitter up to delaySecondsMax after the previous call ended", async () => {
    const start = new Date("2026-03-02T15:00:00Z");
    engine = await startCallEngine(db, { start });
    const { agent } = await createEngineOrganization(db, { steps: [callStep(), callStep({ delaySeconds: 3600, delaySecondsMax: 7200 })] });
    const enrolled = [];
    for (let index = 0; index < 8; index += 1) enrolled.push(await enroll(db, { agent, phoneNumber: `+120255503${index}1`, now: start }));
    await engine.advance(3 * HOUR);
    const delays = new Set<number>();
    for (const created of enrolled) {
      const [first, second] = await callsOf(db, created.sequenceId);
      const delay = (second!.scheduledAt.getTime() - first!.endedAt!.getTime()) / 1000;
      expect(delay).toBeGreaterThanOrEqual(3600);
      expect(delay).toBeLessThanOrEqual(7200);
      expect(Number.isInteger(delay)).toBe(true);
      expect(second!.dialedAt).toEqual(second!.scheduledAt);
      delays.add(delay);
    }
    expect(delays.size).toBeGreaterThan(1);
  });

  it("bypassCallWindows dials outside the window, for every step", async () => {
    // 17:30: outside the agent's 9–5 window, inside quiet hours (8:00–21:00), which bypassCallWindows never skips.
    const start = DateTime.fromISO("2026-03-02T17:30", { zone: "America/New_York" }).toJSDate();
    engine = await startCallEngine(db, { start });
    const { agent } = await createEngineOrganization(db, { steps: [callStep({ window: NINE_TO_FIVE }), callStep({ window: NINE_TO_FIVE, delaySeconds: 3600 })] });
    const bypassed = await enroll(db, { agent, phoneNumber: "+12025550241", bypassCallWindows: true, now: start });
    const windowed = await enroll(db, { agent, phoneNumber: "+12025550251", now: start });
    await engine.advance(2 * HOUR);
    const [first, second] = await callsOf(db, bypassed.sequenceId);
    expect(first!.dialedAt).toEqual(start);
    expect(local(second!.dialedAt, "America/New_York")).toBe(local(new Date(first!.endedAt!.getTime() + HOUR), "America/New_York"));
    expect((await callsOf(db, windowed.sequenceId))[0]!.resultType).toBe("Scheduled");
    await engine.advance(DAY);
    expect(local((await callsOf(db, windowed.sequenceId))[0]!.dialedAt, "America/New_York")).toBe("2026-03-03 09:00");
  });

  it("honours an explicit scheduledAt", async () => {
    const start = new Date("2026-03-02T15:00:00Z");
    engine = await startCallEngine(db, { start });
    const { agent } = await createEngineOrganization(db);
    const at = new Date("2026-03-02T18:30:00Z");
    const created = await enroll(db, { agent, phoneNumber: "+12025550261", scheduledAt: at, now: start });
    await engine.advance(2 * HOUR);
    expect((await callsOf(db, created.sequenceId))[0]!.resultType).toBe("Scheduled");
    await engine.advance(2 * HOUR);
    expect((await callsOf(db, created.sequenceId))[0]!.dialedAt).toEqual(at);
  });
});
