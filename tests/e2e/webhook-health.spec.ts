import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import AxeBuilder from "@axe-core/playwright";
import { expect, openOrgPage, signIn, test } from "./fixtures";

/** A receiver that refuses everything (HTTP 500): the endpoint must read "Failing", not "Enabled". */
let receiver: Server;

test.beforeAll(async () => {
  receiver = createServer((req, res) => {
    req.resume();
    req.on("end", () => res.writeHead(500, { "content-type": "text/plain" }).end("broken"));
  });
  await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
});

test.afterAll(async () => {
  await new Promise((resolve) => receiver.close(resolve));
});

test("an endpoint whose deliveries fail shows as failing on the list, its page and the overview", async ({ page, snap, allowConsoleErrors }) => {
  // Three pages with screenshots at two widths and an axe scan: every step passed in ~91 s at a load average of 13,
  // over the default 90 s (the overview's full-page screenshot with its charts alone took 10 s). Triple the budget.
  test.slow();
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks/failing-${Date.now()}`;
  await signIn(page, "admin");
  await openOrgPage(page, "/webhooks");
  await page.getByLabel("URL").fill(url);
  await page.getByRole("button", { name: "Add endpoint" }).click();
  await expect(page.getByTestId("webhook-secret-value")).toBeVisible();
  await page.getByRole("link", { name: /Open the endpoint/ }).click();
  await expect(page.getByRole("heading", { name: "Webhook endpoint" })).toBeVisible();
  await page.getByLabel("Sample payload of agent").selectOption({ index: 1 });
  allowConsoleErrors(/status of 5\d\d/);
  await page.getByRole("button", { name: "Send test event" }).click();
  await expect(page.getByTestId("test-event-result")).toContainText("500");

  await openOrgPage(page, "/webhooks");
  const row = page.getByRole("row").filter({ hasText: url });
  const health = row.getByTestId("endpoint-health");
  await expect(health).toHaveAttribute("data-state", "failing");
  await expect(health).toContainText("Failing");
  await expect(health).toContainText("Failing since");
  await expect(health).toContainText("1 failed attempt in a row");
  await expect(health).toContainText("Last success: never");
  await expect(row).not.toContainText("Enabled");
  await expect(page.getByTestId("failing-endpoints")).toContainText(url);
  // What this change adds to the page (the whole page is scanned by pages.spec.ts).
  const scan = await new AxeBuilder({ page }).include('[data-testid="failing-endpoints"]').include('[data-testid="endpoint-health"]').analyze();
  expect(scan.violations.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => v.id)).toEqual([]);
  await snap("webhooks-failing");

  await openOrgPage(page);
  await expect(page.getByTestId("failing-endpoints")).toContainText(url);
  await snap("overview-failing-webhook");

  // Leave the shared demo organization as it was.
  await page.getByTestId("failing-endpoints").getByRole("link", { name: url }).click();
  await page.getByRole("button", { name: "Delete endpoint" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Delete" }).click();
  await expect(page).toHaveURL(/\/webhooks$/);
});
