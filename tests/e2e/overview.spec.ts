import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { api, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * An admin opens the organization's overview: its figures are those an integrator reads from GET /credits/usage with
 * the demo API key, and those of the calls in the app's database (the e2e server's embedded PostgreSQL, read directly
 * with the same definitions as docs/console.md gives: a call counts on the UTC day it ended; connected = a charged
 * result; goal completion among connected calls).
 */

function database() {
  const runtime = JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR!, "pg-runtime.json"), "utf8")) as { url: string };
  return postgres(runtime.url, { max: 1 });
}

const utcDay = (offsetDays: number) => new Date(Date.now() - offsetDays * 86_400_000).toISOString().slice(0, 10);

async function callsInDatabase(orgId: string, days: number) {
  const sql = database();
  try {
    const [row] = await sql<Array<{ calls: number; connected: number; goal: number; meetings: number }>>`
      select count(*)::int as calls,
             count(*) filter (where result_type in ('Goal Completed', 'Goal Not Completed', 'Voicemail', 'No Conversation', 'Opted Out'))::int as connected,
             count(*) filter (where result_type = 'Goal Completed')::int as goal,
             count(*) filter (where follow_up_meeting_details is not null and crm_scheduling_details ->> 'bookingUid' is not null)::int as meetings
        from calls
       where organization_id = (select id from organizations where org_id = ${orgId}) and ended_at is not null and ended_at <= now()
         and ended_at >= ${`${utcDay(days - 1)}T00:00:00Z`}::timestamptz
         and result_type not in ('Scheduled', 'Cancelled', 'Rescheduled', 'Calling')`;
    return row!;
  } finally {
    await sql.end();
  }
}

const rate = (part: number, whole: number) => (whole === 0 ? "—" : `${(Math.round((part / whole) * 1000) / 10).toLocaleString("en-US")}%`);

test("the overview's numbers equal GET /credits/usage and the calls in the database", async ({ page, snap }) => {
  test.slow();
  const org = primaryOrg();
  await signIn(page, "admin");
  await openOrgPage(page);
  await expect(page.getByRole("heading", { name: org.name, level: 1 })).toBeVisible();

  for (const days of [7, 30] as const) {
    await page.getByRole("group", { name: "Period" }).getByRole("button", { name: `Last ${days} days` }).click();
    await expect(page.getByTestId("overview-period")).toHaveAttribute("data-days", String(days));
    await expect(page.getByTestId("overview-period")).toHaveAttribute("aria-busy", "false");
    const usage = await api(`/credits/usage?orgId=${encodeURIComponent(org.orgId)}&startDate=${utcDay(days - 1)}&endDate=${utcDay(0)}`, org.apiKey);
    expect(usage.status).toBe(200);
    const db = await callsInDatabase(org.orgId, days);
    expect(db.calls, "the demo seed has calls in the period").toBeGreaterThan(0);
    await expect(page.getByTestId("overview-credits")).toContainText(usage.body.organization.spentCredits.toLocaleString("en-US"));
    await expect(page.getByTestId("overview-calls")).toContainText(db.calls.toLocaleString("en-US"));
    await expect(page.getByTestId("overview-connect-rate")).toContainText(rate(db.connected, db.calls));
    await expect(page.getByTestId("overview-goal-rate")).toContainText(rate(db.goal, db.connected));
    await expect(page.getByTestId("overview-goal-rate")).toContainText(`${db.goal.toLocaleString("en-US")} of ${db.connected.toLocaleString("en-US")} answered`);
    await expect(page.getByTestId("overview-meetings")).toContainText(db.meetings.toLocaleString("en-US"));
  }

  const month = await api(`/credits/usage?orgId=${encodeURIComponent(org.orgId)}`, org.apiKey);
  expect(month.status).toBe(200);
  await expect(page.getByTestId("month-allocated")).toContainText(month.body.organization.allocatedCredits.toLocaleString("en-US"));
  await expect(page.getByTestId("month-spent")).toContainText(month.body.organization.spentCredits.toLocaleString("en-US"));
  await expect(page.getByTestId("month-remaining")).toContainText(month.body.organization.remainingCredits.toLocaleString("en-US"));
  await expect(page.getByTestId("credits-forecast")).toContainText(/the allocation (runs out on|lasts the month)|no forecast/);
  await expect(page.getByTestId("overview-calls-chart").locator(".recharts-bar-rectangle").first()).toBeVisible();

  // The latest call in the database heads the recent calls.
  const sql = database();
  const [latest] = await sql<Array<{ name: string }>>`
    select s.name from calls c join sequences s on s.id = c.sequence_id
     where c.organization_id = (select id from organizations where org_id = ${org.orgId}) and c.ended_at is not null and c.ended_at <= now()
       and c.result_type not in ('Scheduled', 'Cancelled', 'Rescheduled', 'Calling')
     order by c.ended_at desc, c.id desc limit 1`;
  await sql.end();
  await expect(page.getByTestId("recent-calls").locator("tbody tr").first()).toContainText(latest!.name);

  await expectNoSeriousA11yViolations(page, "overview");
  await snap("overview");
});
