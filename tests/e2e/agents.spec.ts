import { api, consoleNumber, expect, openOrgPage, ownedNumber, primaryOrg, signIn, test } from "./fixtures";

test("an admin creates an agent with a required input variable and a DATE/TIME extracted variable; /api/v1 shows them", async ({ page, snap }) => {
  // A long form filled field by field, two saves and API checks: over the default 90 s on a loaded machine.
  test.slow();
  const org = primaryOrg();
  await signIn(page, "admin");
  await openOrgPage(page, "/agents");
  await expect(page.getByRole("link", { name: "Link Booking Agent" })).toBeVisible();
  await snap("agents");

  // Status filter and search.
  await page.getByLabel("Status").selectOption("PAUSED");
  await expect(page.getByRole("link", { name: "Paused Agent" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Link Booking Agent" })).toHaveCount(0);
  await page.getByLabel("Status").selectOption("");
  await page.getByLabel("Search").fill("concierge");
  await expect(page.getByRole("link", { name: "Concierge Agent" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Link Booking Agent" })).toHaveCount(0);

  await page.getByRole("link", { name: "New agent" }).click();
  const name = `E2E Agent ${Date.now()}`;
  const general = page.getByRole("region", { name: "General" });
  await general.getByLabel("Name").fill(name);
  // The pool is picked from the organization's own numbers (docs/numbers.md).
  const poolNumber = await ownedNumber(org.apiKey);
  await general.getByRole("group", { name: "Phone-number pool" }).getByLabel(consoleNumber(poolNumber), { exact: true }).check();
  await page.getByRole("textbox", { name: "Prompt", exact: true }).fill("You are a friendly scheduler. Confirm the account code and a follow-up time.");

  const steps = page.getByRole("region", { name: "Sequence steps" });
  await steps.getByLabel("Window start").fill("09:30");
  await steps.getByLabel("Window end").fill("17:00");
  await expect(steps.getByText(/Calls between 09:30 and 17:00 in each contact's own timezone/)).toBeVisible();

  await page.getByRole("button", { name: "Add input variable" }).click();
  const input = page.getByRole("group", { name: "Input variable 1" });
  await input.getByLabel("Slug").fill("account_code");
  await input.getByLabel("Display name").fill("Account code");
  await input.getByLabel("Required").check();

  await page.getByRole("button", { name: "Add extracted variable" }).click();
  const extracted = page.getByRole("group", { name: "Extracted variable 1" });
  await extracted.getByLabel("Slug").fill("follow_up_at");
  await extracted.getByLabel("Display name").fill("Follow-up at");
  await extracted.getByLabel("Type").selectOption("DATE/TIME");
  await extracted.getByLabel("Date/time format").fill("yyyy-MM-dd HH:mm");
  await extracted.getByLabel("Format in UTC").check();

  await page.getByRole("button", { name: "Add outcome" }).click();
  await page.getByRole("group", { name: "Outcome 1" }).getByLabel("Name").fill("Demo booked");
  await snap("agent-new");

  await page.getByRole("button", { name: "Create agent" }).click();
  await expect(page.getByText("Agent created.")).toBeVisible();
  const agentId = (await page.getByTestId("agent-id").textContent())!.trim();
  expect(agentId).toMatch(/^agent\.[0-9a-z]{26}$/);
  await snap("agent-edit");

  const inputs = await api(`/agents/${agentId}/input-variables`, org.apiKey);
  expect(inputs.status).toBe(200);
  expect(inputs.body.inputVariables).toEqual([{ slug: "account_code", displayName: "Account code", description: "" }]);
  const extractedVars = await api(`/agents/${agentId}/extracted-variables`, org.apiKey);
  expect(extractedVars.body.extractedVariables).toEqual([
    { slug: "follow_up_at", displayName: "Follow-up at", description: "", type: "DATE/TIME", datetimeFormat: "yyyy-MM-dd HH:mm", formatDatetimeInUtc: true },
  ]);
  const outcomes = await api(`/agents/${agentId}/outcomes`, org.apiKey);
  expect(outcomes.body.outcomes.map((o: { name: string }) => o.name)).toEqual(["Demo booked"]);
  const list = await api(`/agents?orgId=${org.orgId}&page=1`, org.apiKey);
  expect(list.body.pagination.totalItems).toBeGreaterThan(5);

  // Edit: delete the input variable (soft delete: the API hides it), disable the outcome, change the prompt.
  await page.getByRole("group", { name: "Input variable 1" }).getByRole("button", { name: "Delete variable" }).click();
  await page.getByRole("group", { name: "Outcome 1" }).getByLabel("Enabled").uncheck();
  await page.getByRole("textbox", { name: "Prompt", exact: true }).fill("You are a friendly scheduler. Version two.");
  // One move of the first seconds: hang up on voicemail instead of leaving the message.
  const moves = page.getByTestId("answer-moves");
  await expect(moves.getByLabel("Voicemail")).toHaveValue("leave-voicemail");
  await expect(moves.getByLabel("A person")).toBeDisabled();
  await moves.getByLabel("Voicemail").selectOption("hang-up");
  await page.getByRole("button", { name: "Save changes" }).click();
  await expect(page.getByText(/Saved\. The prompt is now a new version/)).toBeVisible();
  expect((await api(`/agents/${agentId}/config`, org.apiKey)).body.answerMoves).toMatchObject({ voicemail: "hang-up", ivr: "navigate", human: "converse" });
  await page.reload();
  await expect(page.getByTestId("answer-moves").getByLabel("Voicemail")).toHaveValue("hang-up");
  await page.getByText(/Prompt versions \(2\)/).click();
  await expect(page.getByTestId("prompt-versions").getByRole("listitem")).toHaveCount(2);

  expect((await api(`/agents/${agentId}/input-variables`, org.apiKey)).body.inputVariables).toEqual([]);
  expect((await api(`/agents/${agentId}/outcomes`, org.apiKey)).body.outcomes).toEqual([]);
  expect((await api(`/agents/${agentId}/extracted-variables`, org.apiKey)).body.extractedVariables).toHaveLength(1);
});

test("the editor shows the API's validation message and keeps the input", async ({ page, allowConsoleErrors }) => {
  allowConsoleErrors(/status of 400/);
  await signIn(page, "admin");
  await openOrgPage(page, "/agents/new");
  const general = page.getByRole("region", { name: "General" });
  await general.getByLabel("Name").fill("Invalid agent");
  await general.getByLabel("Timezones 1", { exact: true }).fill("Mars/Olympus_Mons");
  await page.getByRole("textbox", { name: "Prompt", exact: true }).fill("Hello");
  await page.getByRole("button", { name: "Create agent" }).click();
  // The refusal is shown under the refused box, which is marked invalid; no field path ("timezones.0") is shown.
  const timezone = general.getByLabel("Timezones 1", { exact: true });
  await expect(timezone).toHaveAttribute("aria-invalid", "true");
  await expect(timezone).toHaveAccessibleDescription('"Mars/Olympus_Mons" is not an IANA timezone.');
  await expect(general.getByText('"Mars/Olympus_Mons" is not an IANA timezone.')).toBeVisible();
  await expect(page.getByTestId("save-error")).toContainText("Nothing was saved: correct the marked field.");
  await expect(page.locator("main")).not.toContainText("timezones.0", { useInnerText: true });
  await expect(general.getByLabel("Name")).toHaveValue("Invalid agent");
});
