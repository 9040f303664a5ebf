import { expect, openOrgPage, signIn, test } from "./fixtures";

test("an admin enrolls one contact with the API's validation messages, cancels by reference, and sees the background runs", async ({ page, snap, allowConsoleErrors }) => {
  // Enroll (twice), cancel by reference, then the jobs page: over the default 90 s on a loaded machine.
  test.slow();
  allowConsoleErrors(/status of 400/);
  await signIn(page, "admin");
  await openOrgPage(page, "/agents");
  await page.getByRole("link", { name: "Link Booking Agent" }).click();
  await page.getByText("Enroll one contact").click();
  const form = page.getByRole("form", { name: "Enroll one contact" });
  await form.getByLabel("Name", { exact: true }).fill("Ada Lovelace");
  await form.getByLabel("Phone number").fill("+1 (415) 555-0171");
  await form.getByRole("button", { name: "Enroll contact" }).click();
  // The required input variable is missing: the API's own code and message.
  await expect(page.getByTestId("enroll-error")).toContainText("MISSING_INPUT_VARIABLE");
  await expect(page.getByTestId("enroll-error")).toContainText("company_name");

  const reference = `e2e-${Date.now()}`;
  await form.getByLabel("Company name (required)").fill("Analytical Engines");
  await form.getByLabel("CRM reference").fill(reference);
  await form.getByRole("button", { name: "Enroll contact" }).click();
  await expect(page.getByTestId("enroll-result")).toContainText("Enrolled. First call");
  // The sequence's ID is behind the technical details, with a link to the sequence.
  await expect(page.getByTestId("enroll-result")).toContainText(/call-sequence\.[0-9a-z]{26}/);
  await expect(page.getByTestId("enroll-result").getByRole("link", { name: /Open the sequence/ })).toBeVisible();
  await snap("agent-enroll");

  await openOrgPage(page, "/agents");
  const cancel = page.getByRole("form", { name: "Cancel sequences by reference" });
  await cancel.getByLabel("Variable").fill("crm_ref");
  await cancel.getByLabel("Value").fill(reference);
  page.once("dialog", (dialog) => void dialog.accept());
  await cancel.getByRole("button", { name: "Cancel sequences" }).click();
  await expect(page.getByText(`Every in-progress sequence with crm_ref = ${reference} is cancelled`)).toBeVisible();

  await page.getByRole("link", { name: "Jobs" }).click();
  await expect(page.getByRole("heading", { name: "Jobs", level: 1 })).toBeVisible();
  const firstRun = page.getByTestId("runs").getByRole("row").nth(1);
  await expect(firstRun).toBeVisible();
  await firstRun.getByRole("button", { name: "Details" }).click();
  await expect(page.getByRole("heading", { name: "Attempts" })).toBeVisible();
  await snap("jobs");
});

test("jobs are for admins only", async ({ page }) => {
  await signIn(page, "support");
  await expect(page.getByRole("link", { name: "Jobs" })).toHaveCount(0);
  await openOrgPage(page, "/jobs");
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
});
