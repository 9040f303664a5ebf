import { readFileSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { api, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * Issue 28's done-when 3: the demo seed's calls carry call quality (the embedded simulator measures plausible values,
 * server/voice/simulator/quality.ts). A call page shows the timeline under the transcript with the call's own figures;
 * the overview shows the latency tiles and per-agent p50/p95 computed from the same calls in the database, and links
 * the calls over the latency threshold (CALL_QUALITY_LATENCY_THRESHOLD_MS, default 1500).
 */

function database() {
  const runtime = JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR!, "pg-runtime.json"), "utf8")) as { url: string };
  return postgres(runtime.url, { max: 1 });
}

test("a seeded call shows its quality timeline under the transcript", async ({ page }) => {
  const org = primaryOrg();
  const sql = database();
  const [call] = await sql<Array<{ id: string; sequenceId: string; greetingMs: number; turns: number }>>`
    select c.id, c.sequence_id as "sequenceId", (c.quality->>'greetingMs')::int as "greetingMs", jsonb_array_length(c.quality->'turns')::int as turns
      from calls c
     where c.organization_id = (select id from organizations where org_id = ${org.orgId}) and c.quality is not null and c.result_type = 'Goal Not Completed'
       and jsonb_array_length(c.quality->'turns') >= 1
     order by c.ended_at desc limit 1`;
  await sql.end();
  expect(call, "the demo seed has measured calls").toBeDefined();

  // The API carries the same figures (additive `quality` object).
  const metadata = await api(`/conversations/metadata/${encodeURIComponent(call!.sequenceId)}`, org.apiKey);
  const quality = metadata.body.metadata.find((item: { callId: string }) => item.callId === call!.id).quality;
  expect(quality.greetingMs).toBe(call!.greetingMs);
  expect(quality.turns).toBe(call!.turns);

  await signIn(page, "admin");
  await openOrgPage(page, `/calls/${encodeURIComponent(call!.id)}`);
  const transcript = page.getByRole("heading", { name: "Transcript" });
  const timeline = page.getByTestId("call-timeline");
  await expect(timeline).toBeVisible();
  // Under the transcript.
  const [transcriptBox, timelineBox] = [await transcript.boundingBox(), await timeline.boundingBox()];
  expect(timelineBox!.y).toBeGreaterThan(transcriptBox!.y);
  await expect(page.getByTestId("quality-greeting-ms")).toHaveText(`${call!.greetingMs.toLocaleString("en-US")} ms`);
  await expect(page.getByTestId("quality-answered-by")).toContainText("A person");
  await expect(page.getByTestId("quality-turns").locator("tbody tr")).toHaveCount(call!.turns);
  await expect(page.getByTestId("quality-response-ms")).toContainText(`${quality.responseMs.max.toLocaleString("en-US")} ms`);
  await expect(page.getByTestId("timeline-lane-agent-speech").locator("span").first()).toBeVisible();
  await expect(page.getByTestId("timeline-lane-callee-speech").locator("span").first()).toBeVisible();
  await expect(page.getByTestId("timeline-lane-turn").locator("span")).toHaveCount(call!.turns);
  await expectNoSeriousA11yViolations(page, "call page with its timeline");
});

test("the overview shows response latency and greeting delay per agent, who answered, and the slow calls, linked", async ({ page }) => {
  test.slow();
  const org = primaryOrg();
  const since = `${new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10)}T00:00:00Z`;
  const sql = database();
  const perAgent = await sql<Array<{ name: string; p50: number; p95: number }>>`
    select a.name, percentile_cont(0.5) within group (order by (t->>'responseMs')::float8) as p50, percentile_cont(0.95) within group (order by (t->>'responseMs')::float8) as p95
      from calls c join agents a on a.id = c.agent_id cross join lateral jsonb_array_elements(c.quality->'turns') t
     where c.organization_id = (select id from organizations where org_id = ${org.orgId}) and c.quality is not null and c.ended_at >= ${since}::timestamptz and c.ended_at <= now()
     group by a.name order by a.name`;
  const [slow] = await sql<Array<{ total: number }>>`
    select count(*)::int as total from calls c
     cross join lateral (select percentile_cont(0.95) within group (order by (t->>'responseMs')::float8) as p95 from jsonb_array_elements(c.quality->'turns') t) q
     where c.organization_id = (select id from organizations where org_id = ${org.orgId}) and c.quality is not null and c.ended_at >= ${since}::timestamptz and c.ended_at <= now() and q.p95 > 1500`;
  const [machines] = await sql<Array<{ calls: number }>>`
    select count(*)::int as calls from calls c
     where c.organization_id = (select id from organizations where org_id = ${org.orgId}) and c.quality->>'answeredBy' = 'machine' and c.ended_at >= ${since}::timestamptz and c.ended_at <= now()`;
  await sql.end();
  expect(perAgent.length, "measured calls in the demo seed").toBeGreaterThan(0);

  await signIn(page, "admin");
  await openOrgPage(page);
  await page.getByRole("group", { name: "Period" }).getByRole("button", { name: "Last 30 days" }).click();
  await expect(page.getByTestId("overview-period")).toHaveAttribute("data-days", "30");
  await expect(page.getByTestId("overview-period")).toHaveAttribute("aria-busy", "false");
  await expect(page.getByTestId("quality-response")).toContainText(" ms / ");
  await expect(page.getByTestId("quality-greeting")).toContainText(" ms / ");
  for (const agent of perAgent) {
    const row = page.getByTestId("quality-agents").locator("tbody tr", { hasText: agent.name });
    await expect(row).toContainText(`${Math.round(agent.p50).toLocaleString("en-US")} ms / ${Math.round(agent.p95).toLocaleString("en-US")} ms`);
  }
  await expect(page.getByTestId("quality-answered-by-shares")).toContainText(`Voicemail: ${machines!.calls.toLocaleString("en-US")}`);
  await expect(page.getByTestId("quality-slow-calls")).toContainText(slow!.total.toLocaleString("en-US"));
  if (slow!.total > 0) {
    const first = page.getByTestId("quality-slow-calls-table").locator("tbody tr a").first();
    await first.click();
    await expect(page).toHaveURL(/\/calls\//);
    await expect(page.getByTestId("call-timeline")).toBeVisible();
  }
});
