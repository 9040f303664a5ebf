import { readFileSync } from "node:fs";
import path from "node:path";
import { expect, openOrgPage, signIn, test } from "./fixtures";

/** A key of the app's embedded Chili Piper simulator, made through its control API (what an admin copies from Chili Piper). */
async function simulatorKey(permissions: string[] | "full-access"): Promise<string> {
  const endpoint = JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR!, "chili-piper-simulator.endpoint.json"), "utf8")) as { origin: string; controlToken: string };
  const res = await fetch(`${endpoint.origin}/__simulator/api-keys`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-simulator-token": endpoint.controlToken },
    body: JSON.stringify({ permissions }),
  });
  expect(res.status).toBe(201);
  return ((await res.json()) as { key: string }).key;
}

const LINK_ONLY = ["workspace.read", "user.read", "meeting.read", "scheduling-links.read", "scheduling-links.schedule"];

test("an admin connects Chili Piper with a key, sees its permissions per booking mode, tests and disconnects; the key is never shown again", async ({ page, snap }) => {
  test.setTimeout(180_000);
  const limitedKey = await simulatorKey(LINK_ONLY);
  await signIn(page, "admin");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Integrations" }).click();
  await expect(page.getByRole("heading", { level: 1, name: "Integrations" })).toBeVisible();
  const calendar = page.getByTestId("calendar-integration");
  const confirmDisconnect = async () => {
    await calendar.getByRole("button", { name: "Disconnect", exact: true }).click();
    const dialog = page.getByRole("alertdialog");
    await expect(dialog).toContainText("every booking fails");
    await dialog.getByRole("button", { name: "Disconnect", exact: true }).click();
    await expect(calendar.getByText("Not connected").first()).toBeVisible();
  };

  // The demo organization starts connected (the seed's key): disconnect it, then connect the admin's own key.
  await expect(calendar.getByText("Connected", { exact: true })).toBeVisible();
  await confirmDisconnect();
  await expect(calendar).toContainText("cannot book until Chili Piper is connected");

  await calendar.getByLabel("Chili Piper API key", { exact: true }).fill(limitedKey);
  await calendar.getByRole("button", { name: "Connect", exact: true }).click();
  await expect(calendar.getByText("Connected", { exact: true })).toBeVisible();
  await expect(calendar.getByTestId("key-hint")).toHaveText(`Ends in …${limitedKey.slice(-4)}`);
  await expect(calendar.getByTestId("calendar-api-key")).toHaveValue("");

  // Permissions read back from the provider, per booking mode.
  await expect(calendar.getByTestId("capability-link")).toContainText("Works");
  await expect(calendar.getByTestId("capability-crm")).toContainText("Missing permissions");
  await expect(calendar.getByTestId("capability-crm")).toContainText("Book through handoff routers");
  await expect(calendar.getByTestId("capability-concierge")).toContainText("Book through concierge routers");
  await expect(calendar.getByTestId("capability-meetings")).toContainText("Cancel meetings and add attendees");

  // Test connection: a real call to the simulator.
  await calendar.getByRole("button", { name: "Test connection" }).click();
  await expect(calendar.getByTestId("test-result")).toContainText("The connection works");

  // The key is in neither the rendered page nor the HTML the server sends, nor the page's data.
  expect(await page.content()).not.toContain(limitedKey);
  await page.reload();
  await expect(calendar.getByTestId("key-hint")).toHaveText(`Ends in …${limitedKey.slice(-4)}`);
  expect(await page.content()).not.toContain(limitedKey);
  const html = await (await page.request.get(page.url())).text();
  expect(html).not.toContain(limitedKey);
  const data = await page.evaluate(async () => (await fetch("/api/trpc/integrations.get")).text());
  expect(data).toContain(limitedKey.slice(-4));
  expect(data).not.toContain(limitedKey);
  await snap("integrations-connected");

  await confirmDisconnect();
  await expect(calendar.getByTestId("key-hint")).toHaveCount(0);
  expect(await page.content()).not.toContain(limitedKey);

  // Leave the organization connected with full access, as the other specs expect it.
  await calendar.getByLabel("Chili Piper API key", { exact: true }).fill(await simulatorKey("full-access"));
  await calendar.getByRole("button", { name: "Connect", exact: true }).click();
  await expect(calendar.getByTestId("capability-crm")).toContainText("Works");
});

test("a member sees the integrations read-only", async ({ page }) => {
  await signIn(page, "member");
  await openOrgPage(page, "/integrations");
  await expect(page.getByRole("heading", { level: 1, name: "Integrations" })).toBeVisible();
  const calendar = page.getByTestId("calendar-integration");
  await expect(calendar.getByText("Connected", { exact: true })).toBeVisible();
  await expect(calendar).toContainText("Only admins can connect");
  await expect(calendar.getByRole("button", { name: "Disconnect", exact: true })).toHaveCount(0);
  await expect(calendar.getByRole("button", { name: "Test connection" })).toHaveCount(0);
  await expect(page.getByTestId("voice-engine")).toContainText("Simulator");
  await expect(page.getByRole("table", { name: "Phone numbers of each agent" })).toBeVisible();
});
