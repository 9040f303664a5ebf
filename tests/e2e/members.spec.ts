import type { Page } from "@playwright/test";
import { expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/** The invitee's own browser accepts the link by creating the account. */
async function acceptAsNewAccount(invitee: Page, link: string, password: string) {
  await invitee.goto(link);
  await invitee.getByLabel("Password", { exact: true }).fill(password);
  await invitee.getByLabel("Repeat the password").fill(password);
  await invitee.getByRole("button", { name: "Create account and join" }).click();
  await expect(invitee).toHaveURL(new RegExp(`/${primaryOrg().orgId}$`));
}

test("an admin invites with a role (no password shown), resends, changes the role, cannot remove the last admin, removes the member (who is signed out)", async ({
  page,
  browser,
  snap,
  allowConsoleErrors,
}) => {
  allowConsoleErrors(/status of 409/);
  await signIn(page, "admin");
  await openOrgPage(page, "/members");
  const email = `new.person.${Date.now()}@demo.test`;
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption("support");
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`${email} is invited.`)).toBeVisible();
  await expect(page.getByText(/initial password/i)).toHaveCount(0);
  const firstLink = (await page.getByTestId("invite-link").textContent())!.trim();
  // Not a member until accepted.
  const members = page.getByRole("table").filter({ has: page.getByText("Member since") });
  await expect(members.getByRole("row").filter({ hasText: email })).toHaveCount(0);
  const pending = page.getByRole("region", { name: "Pending invitations" }).getByRole("row").filter({ hasText: email });
  await expect(pending).toContainText("Support");
  await snap("members");

  // Resend: a new link; the first one stops working.
  await pending.getByRole("button", { name: "Resend" }).click();
  await expect(page.getByTestId("invite-link")).not.toHaveText(firstLink);
  const link = (await page.getByTestId("invite-link").textContent())!.trim();

  const context = await browser.newContext({ baseURL: `http://localhost:${process.env.E2E_PORT}` });
  const invitee = await context.newPage();
  await invitee.goto(firstLink);
  await expect(invitee.getByRole("heading", { name: "Invitation not found" })).toBeVisible();
  await acceptAsNewAccount(invitee, link, "a password of my own");

  await page.reload();
  const row = members.getByRole("row").filter({ hasText: email });
  await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("support");
  await row.getByLabel(`Role of ${email}`).selectOption("member");
  await expect(row.getByLabel(`Role of ${email}`)).toHaveValue("member");

  const adminRow = members.getByRole("row").filter({ hasText: "admin@demo.test" });
  await adminRow.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("alertdialog", { name: "Remove admin@demo.test?" }).getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByText("This is the organization's last admin")).toBeVisible();

  await row.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("alertdialog", { name: `Remove ${email}?` }).getByRole("button", { name: "Remove member" }).click();
  await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(0);

  // Their session ended with the removal.
  await invitee.goto("/");
  await expect(invitee).toHaveURL(/\/sign-in/);
  await context.close();
});
