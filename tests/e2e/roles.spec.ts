import { expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

test("a support member can neither open the API keys page nor call its procedures", async ({ page, snap }) => {
  await signIn(page, "support");
  await expect(page.getByRole("link", { name: "API keys" })).toHaveCount(0);
  await openOrgPage(page, "/api-keys");
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  await expect(page.getByText(/ock_/)).toHaveCount(0);
  await snap("api-keys-forbidden-support");

  // The procedures refuse the session too (hiding the page is not the check).
  const headers = { "x-org-id": primaryOrg().orgId, "content-type": "application/json" };
  const list = await page.request.get("/api/trpc/apiKeys.list", { headers });
  expect(list.status()).toBe(403);
  expect((await list.json()).error.data.appCode).toBe("FORBIDDEN");
  const create = await page.request.post("/api/trpc/apiKeys.create", { headers, data: { name: "sneaky" } });
  expect(create.status()).toBe(403);
  // Reads that support may do still work.
  const usage = await page.request.get(`/api/trpc/credits.usage?input=${encodeURIComponent("{}")}`, { headers });
  expect(usage.status()).toBe(200);
});

test("a member sees agents read-only and cannot save", async ({ page, snap }) => {
  await signIn(page, "member");
  await openOrgPage(page, "/agents");
  await expect(page.getByRole("link", { name: "New agent" })).toHaveCount(0);
  await page.getByRole("link", { name: "Link Booking Agent" }).click();
  await expect(page.getByText("only admins can change it")).toBeVisible();
  await expect(page.getByRole("region", { name: "General" }).getByLabel("Name")).toBeDisabled();
  await expect(page.getByRole("button", { name: "Save changes" })).toHaveCount(0);
  await snap("agent-readonly-member");
  const response = await page.request.post("/api/trpc/agents.update", {
    headers: { "x-org-id": primaryOrg().orgId, "content-type": "application/json" },
    data: {},
  });
  expect(response.status()).toBe(403);
});
