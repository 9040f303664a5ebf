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

  // Keep the session cookie, as someone who copied it would.
  const before = await page.context().cookies();
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
  await openOrgPage(page);
  await expect(page).toHaveURL(/\/sign-in/);
  // The old session token no longer works after sign-out.
  await page.context().addCookies(before.filter((cookie) => cookie.name.includes("session-token")));
  await openOrgPage(page);
  await expect(page).toHaveURL(/\/sign-in/);
});

test("repeated wrong passwords lock the account with a clear message", async ({ page, allowConsoleErrors }) => {
  allowConsoleErrors(/status of 401/);
  // A made-up address: counted the same as an existing one, and no demo user gets locked for the other specs.
  const email = `someone.${Date.now()}@demo.test`;
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(email);
  for (let i = 0; i < 4; i++) {
    await page.getByLabel("Password").fill(`guess ${i}`);
    await page.getByRole("button", { name: "Sign in", exact: true }).click();
    await expect(page.locator("#sign-in-error")).toHaveText("Wrong email or password.");
  }
  await page.getByLabel("Password").fill("guess 5");
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.locator("#sign-in-error")).toHaveText("Too many attempts, try again in 15 minutes.");
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
