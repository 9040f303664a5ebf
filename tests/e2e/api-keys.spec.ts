import { api, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

test("an admin creates a key (shown once), it works on /api/v1, and once revoked it gets 401", async ({ page, snap }) => {
  await signIn(page, "admin");
  await openOrgPage(page, "/api-keys");
  await expect(page.getByRole("heading", { name: "API keys", level: 1 })).toBeVisible();
  // The demo key is visible on first run.
  await expect(page.getByTestId("demo-key-value")).toHaveText(primaryOrg().apiKey);

  const name = `e2e key ${Date.now()}`;
  await page.getByLabel("Name").fill(name);
  await page.getByRole("button", { name: "Create key" }).click();
  const key = (await page.getByTestId("new-key-value").textContent())!.trim();
  expect(key).toMatch(/^ock_/);
  await expect(page.getByTestId("new-key").getByRole("button", { name: "Copy", exact: true })).toBeVisible();
  await snap("api-keys");

  const ok = await api(`/agents?orgId=${primaryOrg().orgId}`, key);
  expect(ok.status).toBe(200);

  const row = page.getByTestId(`key-row-${name}`);
  await row.getByRole("button", { name: "Revoke" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Revoke key" }).click();
  await expect(row.getByText("Revoked")).toBeVisible();

  const refused = await api(`/agents?orgId=${primaryOrg().orgId}`, key);
  expect(refused.status).toBe(401);
  expect(refused.body.error).toBe("INVALID_API_KEY");
  // The page reloads without showing the key again.
  await page.reload();
  await expect(page.getByText(key)).toHaveCount(0);
});
