import type { Browser, Page } from "@playwright/test";
import { demoData, demoUser, expect, primaryOrg, signIn, test } from "./fixtures";

function secondaryOrg() {
  return demoData().organizations.find((org) => org.key === "secondary")!;
}

/** The admin invites `email` with `role` on the Members page of `orgId`; returns the link shown once. */
async function invite(page: Page, orgId: string, email: string, role: "admin" | "support" | "member") {
  await page.goto(`/${encodeURIComponent(orgId)}/members`);
  await page.getByLabel("Email").fill(email);
  await page.getByLabel("Role", { exact: true }).selectOption(role);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`${email} is invited.`)).toBeVisible();
  const link = (await page.getByTestId("invite-link").textContent())!.trim();
  expect(link).toMatch(/\/invite\/[A-Za-z0-9_-]{43}$/);
  await expect(page.getByRole("region", { name: "Pending invitations" }).getByRole("row").filter({ hasText: email })).toContainText(role, { ignoreCase: true });
  return link;
}

/** A separate browser (own cookies): the invitee's. */
async function inviteeBrowser(browser: Browser) {
  const context = await browser.newContext({ baseURL: `http://localhost:${process.env.E2E_PORT}` });
  return { context, page: await context.newPage() };
}

test("an invitee sets their own password through the link and lands in the org with the invited role; another org's invitation grants nothing until they accept it", async ({
  page,
  browser,
  snap,
  allowConsoleErrors,
}) => {
  allowConsoleErrors(/status of 403/);
  const email = `invitee.${Date.now()}@example.test`;
  await signIn(page, "admin");
  const link = await invite(page, primaryOrg().orgId, email, "support");
  await snap("members-invited");

  const invitee = await inviteeBrowser(browser);
  await invitee.page.goto(link);
  await expect(invitee.page.getByText(`You are invited to join ${primaryOrg().name} as support`)).toBeVisible();
  await invitee.page.getByLabel("Your name").fill("Ivy Invitee");
  await invitee.page.getByLabel("Password", { exact: true }).fill("ivy's own password");
  await invitee.page.getByLabel("Repeat the password").fill("ivy's own password");
  await invitee.page.getByRole("button", { name: "Create account and join" }).click();
  await expect(invitee.page).toHaveURL(new RegExp(`/${primaryOrg().orgId}$`));
  await expect(invitee.page.getByText("Role: support")).toBeVisible();
  await expect(invitee.page.getByText(email)).toBeVisible();

  // The link works once.
  await invitee.page.goto(link);
  await expect(invitee.page.getByRole("heading", { name: "This invitation was already used" })).toBeVisible();

  // The admin's second organization invites the same (now existing) account as admin: nothing is granted yet.
  const secondLink = await invite(page, secondaryOrg().orgId, email, "admin");
  await invitee.page.goto(`/${encodeURIComponent(secondaryOrg().orgId)}`);
  await expect(invitee.page.getByRole("heading", { name: "Not a member" })).toBeVisible();

  // Someone else signed in who opens that link gets nothing either.
  const stranger = await inviteeBrowser(browser);
  await signIn(stranger.page, "support");
  await stranger.page.goto(secondLink);
  await expect(stranger.page.getByText(`You are signed in as ${demoUser("support").email}`)).toBeVisible();
  await expect(stranger.page.getByRole("button", { name: "Accept invitation" })).toHaveCount(0);
  await stranger.context.close();

  // The invitee, signed in as themselves, accepts.
  await invitee.page.goto(secondLink);
  await invitee.page.getByRole("button", { name: "Accept invitation" }).click();
  await expect(invitee.page).toHaveURL(new RegExp(`/${secondaryOrg().orgId}$`));
  await expect(invitee.page.getByText("Role: admin")).toBeVisible();
  await invitee.context.close();

  await page.goto(`/${encodeURIComponent(secondaryOrg().orgId)}/members`);
  await expect(page.getByRole("row").filter({ hasText: email }).getByLabel(`Role of ${email}`)).toHaveValue("admin");
});

test("expired, revoked and unknown links say so; a revoked invitation disappears from the list", async ({ page, browser }) => {
  const email = `revoked.${Date.now()}@example.test`;
  await signIn(page, "admin");
  const link = await invite(page, primaryOrg().orgId, email, "member");
  const pending = page.getByRole("region", { name: "Pending invitations" }).getByRole("row").filter({ hasText: email });
  await pending.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("alertdialog", { name: `Revoke the invitation to ${email}?` }).getByRole("button", { name: "Revoke invitation" }).click();
  await expect(page.getByRole("row").filter({ hasText: email })).toHaveCount(0);

  const invitee = await inviteeBrowser(browser);
  await invitee.page.goto(link);
  await expect(invitee.page.getByRole("heading", { name: "This invitation was revoked" })).toBeVisible();
  await invitee.page.goto(`${link.slice(0, -4)}AAAA`);
  await expect(invitee.page.getByRole("heading", { name: "Invitation not found" })).toBeVisible();
  await invitee.context.close();
});
