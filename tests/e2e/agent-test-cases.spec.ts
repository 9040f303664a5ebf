import { api, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * An admin writes a test case in the console — the caller, the agent's input variables, each expectation as a control
 * — sees what it is as the API's JSON, has a bad pattern refused with the server's reason, adds it, and runs the
 * agent's cases: the new one is played and passes (docs/agent-testing.md).
 */
test("an admin writes a test case with the expectation controls and runs it", async ({ page, allowConsoleErrors }) => {
  test.slow();
  // The refused pattern below: the browser logs the 400 it shows.
  allowConsoleErrors(/status of 400 .*agentTests\.createTestCase/);
  const org = primaryOrg();
  const agent = org.agents.find((candidate) => candidate.role === "concierge")!;
  await signIn(page, "admin");
  await openOrgPage(page, `/agents/${encodeURIComponent(agent.agentId)}`);
  await page.getByRole("tab", { name: "Tests" }).click();
  await page.getByRole("button", { name: "New test case" }).click();

  const form = page.getByRole("form", { name: "New test case" });
  await form.getByLabel("Name", { exact: true }).fill("Stops the calls (written in the console)");
  await form.getByLabel("Caller persona").fill("Annoyed by sales calls. Asks to stop calling and to be removed from the list.");
  await form.getByLabel("Company name").fill("Contoso");
  await form.getByLabel("Result type").selectOption("Opted Out");
  await form.getByLabel("Tool opt_out").selectOption("called");
  await form.getByLabel("Tool book_meeting").selectOption("not-called");
  await form.getByLabel("Calendar slot booked").selectOption("no");

  // A value check with a pattern that is no regular expression: the server refuses it, and its reason is shown under
  // that check's value (no field path).
  await form.getByRole("button", { name: "Add a value check" }).click();
  const check = form.getByTestId("test-case-variable-check");
  await check.getByLabel("Check").selectOption("regex");
  await check.getByLabel("Value").fill("(");
  await form.getByRole("button", { name: "Add test case" }).click();
  await expect(check.getByLabel("Value")).toHaveAttribute("aria-invalid", "true");
  await expect(check.getByLabel("Value")).toHaveAccessibleDescription(/not a valid regular expression/i);
  await expect(form.getByRole("alert")).toContainText("correct the marked field");
  await expect(form).not.toContainText("extractedVariables", { useInnerText: true });
  await check.getByRole("button", { name: "Remove" }).click();
  await expect(check).toHaveCount(0);
  await expect(form.getByRole("alert"), "the refusal goes with the change that answers it").toHaveCount(0);

  const expected = { resultType: "Opted Out", toolsCalled: ["opt_out"], toolsNotCalled: ["book_meeting"], meetingBooked: false };
  await form.getByText("As the API takes it").click();
  expect(JSON.parse((await form.getByTestId("test-case-expectations-json").textContent()) ?? "")).toEqual(expected);
  await expectNoSeriousA11yViolations(page, "new test case form");

  await form.getByRole("button", { name: "Add test case" }).click();
  const cases = page.getByTestId("test-cases");
  await expect(cases).toContainText("Stops the calls (written in the console)");
  // Stored as the API returns it: the expectations, the input variables.
  const listed = await api(`/agents/${encodeURIComponent(agent.agentId)}/tests/cases`, org.apiKey);
  const stored = listed.body.testCases.find((testCase: { name: string }) => testCase.name === "Stops the calls (written in the console)");
  expect(stored).toMatchObject({ expectations: expected, inputVariables: { company_name: "Contoso" } });

  // Run every case of the agent: the new one is played and passes.
  await page.getByRole("button", { name: "Run all tests" }).click();
  const run = page.getByTestId("test-run").first();
  const total = listed.body.testCases.length;
  await expect(run).toContainText(`${total}/${total} passed`, { timeout: 90_000 });
  await run.getByRole("button", { name: "Show results" }).click();
  const result = run.getByTestId("test-result").filter({ hasText: "Stops the calls (written in the console)" });
  await expect(result).toContainText("passed");
  await result.getByText("Checks and transcript").click();
  await expect(result).toContainText("tool opt_out called");
});
