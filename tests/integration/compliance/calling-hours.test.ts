import { describe, expect, it, vi } from "vitest";
import { describeWeek } from "@/app/(dashboard)/[orgId]/compliance/calling-hours-section";
import { createTestOrganization } from "../../factories";
import { useTestDb } from "../../helpers/db";
import { consoleCaller } from "../console/helpers";

const db = useTestDb();

describe("organizations.callingHours: the quiet hours in force, for the Compliance page", () => {
  it("lists the federal rule first, then Canada and the states, with their windows, holidays and attempt caps, to any member", async () => {
    // The test setup switches them off for the engine tests' simulated numbers.
    vi.stubEnv("COMPLIANCE_QUIET_HOURS", "on");
    const { organization } = await createTestOrganization(db);
    const hours = await (await consoleCaller(db, organization.id, "member")).organizations.callingHours();
    expect(hours.enforced).toBe(true);
    expect(hours.rules[0]).toMatchObject({ jurisdiction: "US", week: Array(7).fill({ start: 8 * 60, end: 21 * 60 }), closedOnHolidays: false, attemptCap: null });
    expect(hours.rules[1]!.jurisdiction).toBe("CA");
    expect(hours.rules.find((rule) => rule.jurisdiction === "US-FL")).toMatchObject({ attemptCap: { maxAttempts: 3, perHours: 24 } });
    expect(describeWeek(hours.rules[0]!.week)).toBe("Every day 8:00–21:00");
    expect(describeWeek(hours.rules.find((rule) => rule.jurisdiction === "US-AL")!.week)).toBe("Mon–Sat 8:00–20:00; Sun no calls");
    expect(describeWeek(hours.rules[1]!.week)).toBe("Mon–Fri 9:00–21:30; Sat–Sun 10:00–18:00");
    vi.unstubAllEnvs();
  });

  it("says when a test deployment has switched them off", async () => {
    vi.stubEnv("COMPLIANCE_QUIET_HOURS", "off");
    try {
      const { organization } = await createTestOrganization(db);
      expect((await (await consoleCaller(db, organization.id, "member")).organizations.callingHours()).enforced).toBe(false);
    } finally {
      vi.unstubAllEnvs();
    }
  });
});
