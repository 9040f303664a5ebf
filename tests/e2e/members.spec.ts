import { expect, openOrgPage, signIn, test } from "./fixtures";

test("an admin adds a member with a role, changes the role, cannot remove the last admin, removes the member", async ({ page, snap, allowConsoleErrors }) => {
  allowConsoleErrors(/status of 409/);
  await signIn(page, "admin");
  await openOrgPage(page, "/members");
  const email = `new.person.${Date.now()}@demo.test`;
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption("support");
  await page.getByRole("button", { name: "Add member" }).click();
  await expect(page.getByText(`${email} was added.`)).toBeVisible();
  await expect(page.getByText("initial password")).toBeVisible();
  const row = page.getByRole("row").filter({ hasText: email });
  await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("support");
  await snap("members");

  await row.getByLabel(`Role of ${email}`).selectOption("member");
  await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("member");

  const adminRow = page.getByRole("row").filter({ hasText: "admin@demo.test" });
  await adminRow.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("dialog", { name: "Remove admin@demo.test?" }).getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByText("This is the organization's last admin")).toBeVisible();

  await row.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("dialog", { name: `Remove ${email}?` }).getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(0);
});
