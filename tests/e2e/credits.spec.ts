import { readFileSync } from "node:fs";
import { expect, openOrgPage, signIn, test } from "./fixtures";

test("credits: month view with per-agent breakdown, chart and CSV; custom range; the API's range rules", async ({ page, snap, allowConsoleErrors }) => {
  // Chart, CSV download and three ranges: over the default 90 s on a loaded machine.
  test.slow();
  await signIn(page, "admin");
  await openOrgPage(page, "/credits");
  await expect(page.getByTestId("allocated")).toHaveText("50,000");
  const month = new Date().toLocaleString("en-US", { month: "long", year: "numeric", timeZone: "UTC" });
  await expect(page.getByTestId("period")).toContainText(`Billing month ${month}`);
  await expect(page.getByTestId("agent-breakdown").getByRole("row")).not.toHaveCount(1);
  await expect(page.getByTestId("daily-chart").locator("svg.recharts-surface")).toBeVisible();
  await snap("credits-month");

  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV (by agent)" }).click();
  const download = await downloadPromise;
  const csv = readFileSync((await download.path())!, "utf8");
  expect(csv.split(/\r?\n/)[0]).toBe("startDate,endDate,agentId,agentName,spentCredits,transactionCount");
  expect(csv).toContain("Link Booking Agent");

  await page.getByLabel("Custom range").check();
  await page.getByLabel("From (inclusive)").fill(new Date(Date.now() - 10 * 86_400_000).toISOString().slice(0, 10));
  await page.getByLabel("To (inclusive)").fill(new Date().toISOString().slice(0, 10));
  await page.getByRole("button", { name: "Show range" }).click();
  await expect(page.getByTestId("period")).toContainText("Custom range");
  await expect(page.getByTestId("allocated")).toHaveCount(0);
  await expect(page.getByTestId("spent")).toBeVisible();
  await snap("credits-range");

  // Over 366 days: the API's own message.
  allowConsoleErrors(/status of 400/);
  await page.getByLabel("From (inclusive)").fill("2020-01-01");
  await page.getByRole("button", { name: "Show range" }).click();
  await expect(page.getByRole("alert").first()).toContainText("The range cannot exceed 366 days.");
});
