import { expect, test } from "./fixtures";

test("the API reference renders the OpenAPI document", async ({ page, snap }) => {
  await page.goto("/docs");
  await expect(page.getByText("Outbound AI Calling Service API")).toBeVisible();
  // Swagger UI lists the operations from /api/v1/openapi.json.
  await expect(page.locator(".opblock-summary-path", { hasText: "/credits/usage" }).first()).toBeVisible();
  await expect(page.locator(".opblock-summary-path", { hasText: "/agents/{agentId}/schedule/sequences" }).first()).toBeVisible();
  await page.locator(".opblock-summary-path", { hasText: "/credits/usage" }).first().click();
  await expect(page.getByText("startDate").first()).toBeVisible();
  await snap("api-docs");
});
