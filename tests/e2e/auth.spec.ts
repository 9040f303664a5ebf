import { demoUser, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

test("a signed-out visitor is sent to sign-in, signs in with the seeded admin and signs out", async ({ page, snap }) => {
  await openOrgPage(page, "/agents");
  await expect(page).toHaveURL(/\/sign-in\?callbackUrl=/);
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();
  await expect(page.getByRole("button", { name: "Sign in with Test IdP" })).toBeVisible();
  await snap("sign-in");

  await signIn(page, "admin");
  await expect(page.getByRole("heading", { level: 1 })).toContainText(primaryOrg().name.split(" (")[0]!);
  await expect(page.getByText(demoUser("admin").email)).toBeVisible();
  await snap("overview");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await openOrgPage(page);
  await expect(page).toHaveURL(/\/sign-in/);
});

test("a wrong password is refused with a clear message", async ({ page, allowConsoleErrors }) => {
  // The browser logs the 401 of the credentials callback; that one is expected.
  allowConsoleErrors(/status of 401/);
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(demoUser("admin").email);
  await page.getByLabel("Password").fill("not-the-password");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.locator("#sign-in-error")).toHaveText("Wrong email or password.");
  await expect(page).toHaveURL(/\/sign-in/);
});

test("the organization switcher moves between the admin's organizations", async ({ page }) => {
  await signIn(page, "admin");
  const switcher = page.getByLabel("Organization");
  const secondary = (await import("./fixtures")).demoData().organizations.find((o) => o.key === "secondary")!;
  await switcher.selectOption(secondary.orgId);
  await expect(page).toHaveURL(new RegExp(`/${secondary.orgId}$`));
  await expect(page.getByRole("heading", { level: 1 })).toContainText("Globex");
  await page.getByRole("link", { name: "Agents", exact: true }).click();
  await expect(page.getByRole("link", { name: "Globex Agent" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Link Booking Agent" })).toHaveCount(0);
});
