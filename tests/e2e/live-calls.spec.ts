import { api, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * An admin follows a call in progress on the Live calls page: the transcript grows line by line (the simulator reports
 * each turn as it is spoken; the e2e server runs its calls slowly enough to follow, see playwright.config.ts), and
 * Hang up ends the call.
 */
test("an admin watches a live call's transcript grow and hangs it up", async ({ page, snap }) => {
  const org = primaryOrg();
  const agent = org.agents.find((a) => a.role === "crm") ?? org.agents[0]!;
  const name = `Live Caller ${Date.now()}`;
  // A number ending in 1: the contact answers and talks for 90-240 simulated seconds.
  const phoneNumber = `+12125550${String(Math.floor(Math.random() * 100)).padStart(2, "0")}1`;
  await signIn(page, "admin");
  await openOrgPage(page, "/live-calls");
  await expect(page.getByRole("heading", { name: "Live calls", level: 1 })).toBeVisible();

  const enrolled = await api(`/agents/${encodeURIComponent(agent.agentId)}/schedule/sequence`, org.apiKey, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, phoneNumber, timezone: "America/New_York", bypassCallWindows: true, company_name: "Live Corp" }),
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
  const sequenceId = enrolled.body.sequence.sequenceId as string;

  const card = page.locator('[data-testid^="live-call-"]').filter({ hasText: name });
  await expect(card).toBeVisible({ timeout: 45_000 });
  const follow = card.getByRole("button", { name: "Follow the transcript" });
  if (await follow.isVisible()) await follow.click();
  const lines = card.getByTestId("live-transcript").getByRole("listitem");
  await expect(lines.first()).toBeVisible({ timeout: 20_000 });
  await expect(card.getByTestId("live-state")).toContainText("Answered");
  const before = await lines.count();
  await expect.poll(() => lines.count(), { timeout: 15_000 }).toBeGreaterThan(before);
  await expectNoSeriousA11yViolations(page, "live calls");
  await snap("live-calls");

  await card.getByRole("button", { name: "Hang up" }).click();
  await page.getByRole("alertdialog", { name: "Hang up this call?" }).getByRole("button", { name: "Hang up" }).click();
  await expect(card.getByTestId("call-ended")).toBeVisible({ timeout: 20_000 });
  const spoken = await lines.count();
  // The call is over for the API too.
  await expect
    .poll(async () => {
      const meta = await api(`/conversations/metadata/${encodeURIComponent(sequenceId)}`, org.apiKey);
      return (meta.body?.metadata as Array<{ callStatus: string }> | undefined)?.[0]?.callStatus ?? "none";
    })
    .not.toBe("calling");
  await page.waitForTimeout(2_000);
  expect(await lines.count()).toBe(spoken);
});

test("members see live calls without Hang up", async ({ page }) => {
  await signIn(page, "member");
  await openOrgPage(page, "/live-calls");
  await expect(page.getByRole("heading", { name: "Live calls", level: 1 })).toBeVisible();
  await expect(page.getByRole("button", { name: "Hang up" })).toHaveCount(0);
});
