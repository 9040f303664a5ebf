import type { Locator } from "@playwright/test";
import { api, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * docs/console.md, "Plain language": no raw field paths, `prompt-ver.…` IDs or internal job names in the console's
 * text. A field the server refuses shows the server's reason beside it, marked `aria-invalid` and described by it.
 */

/** The control is marked invalid, described by `message`, and the message is shown (beside it, in its field). */
async function expectFieldError(control: Locator, message: RegExp) {
  await expect(control).toHaveAttribute("aria-invalid", "true");
  await expect(control).toHaveAccessibleDescription(message);
  const ids = ((await control.getAttribute("aria-describedby")) ?? "").split(/\s+/).filter(Boolean);
  const described = control.page().locator(ids.map((id) => `[id="${id}"]`).join(", "));
  await expect(described.filter({ hasText: message })).toBeVisible();
}

/** None of `texts` is shown in `area` (text inside a closed disclosure is not shown). */
async function expectNoRawText(area: Locator, texts: string[]) {
  for (const text of texts) await expect(area, `"${text}" is shown`).not.toContainText(text, { useInnerText: true });
}

test("Messaging: a sender address the server refuses is shown under its field, not as `emailFrom: …`", async ({ page, allowConsoleErrors }) => {
  allowConsoleErrors(/status of 400/);
  await signIn(page, "admin");
  await openOrgPage(page, "/messaging");
  const sender = page.getByRole("form", { name: "Sender and help text" });
  await sender.getByLabel("Email From").fill("Sales team at acme");
  await sender.getByRole("button", { name: "Save" }).click();

  await expectFieldError(sender.getByLabel("Email From"), /"Sales team at acme" is not an email address/);
  await expect(sender.getByLabel("Email Reply-To")).not.toHaveAttribute("aria-invalid", "true");
  await expect(sender.getByRole("alert")).toHaveText("Nothing was saved: correct the marked field.");
  await expectNoRawText(sender, ["emailFrom", "Invalid request"]);

  // The Reply-To is refused the same way, under its own field.
  await sender.getByLabel("Email From").fill("");
  await sender.getByLabel("Email Reply-To").fill("replies@");
  await sender.getByRole("button", { name: "Save" }).click();
  await expectFieldError(sender.getByLabel("Email Reply-To"), /"replies@" is not an email address/);
  await expect(sender.getByLabel("Email From")).not.toHaveAttribute("aria-invalid", "true");
  await expectNoRawText(sender, ["emailReplyTo"]);
});

test("Compliance: a custom redaction pattern that is no regular expression is shown under the patterns with its line", async ({ page, allowConsoleErrors }) => {
  allowConsoleErrors(/status of 400/);
  await signIn(page, "admin");
  await openOrgPage(page, "/compliance");
  const privacy = page.getByRole("region", { name: "Redaction and retention" });
  const patterns = privacy.getByLabel("Custom patterns");
  await patterns.fill("member-id: MBR-\\d{6}\n\nclaim-number: (CLM");
  await privacy.getByRole("button", { name: "Save" }).click();

  // The second pattern, on the third line of the box (the empty line is skipped), is the one refused.
  await expectFieldError(patterns, /Line 3: The pattern is not a valid regular expression/);
  await expect(privacy.getByRole("alert")).toHaveText("Nothing was saved: correct the marked field.");
  await expectNoRawText(privacy, ["redactionPatterns", "Invalid request"]);
});

test("Agent tests: prompt versions and test runs are named by version number and date, never by `prompt-ver.` ID", async ({ page }) => {
  test.slow();
  const org = primaryOrg();
  const agent = org.agents.find((candidate) => candidate.role === "crm")!;
  // A run of the agent's cases (API key: the organization), so the runs list has one.
  const started = await api(`/agents/${encodeURIComponent(agent.agentId)}/tests/runs`, org.apiKey, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({}),
  });
  expect(started.status).toBe(202);

  await signIn(page, "admin");
  await openOrgPage(page, `/agents/${encodeURIComponent(agent.agentId)}`);
  await page.getByRole("tab", { name: "Tests" }).click();
  const runsPanel = page.getByRole("region", { name: "Test cases and runs" });
  const picker = runsPanel.getByLabel("Prompt version");
  await expect(picker.locator("option").nth(1)).toHaveText(/^Version \d+ \(saved .+\)/);
  for (const option of await picker.locator("option").allTextContents()) expect(option).not.toContain("prompt-ver.");
  await expect(runsPanel.getByTestId("test-run").first()).toContainText(/Version \d+/);
  const versionsPanel = page.getByRole("region", { name: "Prompt versions" });
  await expect(versionsPanel.getByTestId("prompt-versions").getByRole("listitem").first()).toContainText(/Version \d+/);
  await expectNoRawText(runsPanel, ["prompt-ver."]);
  await expectNoRawText(versionsPanel, ["prompt-ver."]);
  // The ID is still there for who needs it, behind the disclosure.
  await versionsPanel.getByText("IDs", { exact: true }).first().click();
  await expect(versionsPanel.getByText(/^prompt-ver\./).first()).toBeVisible();
});

test("Jobs: a test run's job is named as docs/agent-testing.md names it, not by the function's internal name", async ({ page }) => {
  const org = primaryOrg();
  const agent = org.agents.find((candidate) => candidate.role === "concierge")!;
  const started = await api(`/agents/${encodeURIComponent(agent.agentId)}/tests/runs`, org.apiKey, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({}),
  });
  expect(started.status).toBe(202);
  await signIn(page, "admin");
  await openOrgPage(page, "/jobs");
  await expect(page.getByRole("heading", { name: "Jobs", level: 1 })).toBeVisible();
  const runs = page.getByTestId("runs");
  await expect(async () => {
    await page.reload();
    await expect(runs.getByText("Running an agent's test cases").first()).toBeVisible({ timeout: 3_000 });
  }).toPass({ timeout: 45_000 });
  await expectNoRawText(page.locator("main"), ["Agent tests: play a test run's cases", "run-agent-tests"]);
});
