import { readFileSync } from "node:fs";
import { api, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/** A number no other spec uses: +1 628 555 01xx with a per-run suffix. */
const stamp = String(Date.now() % 90 + 10);
const first = `+1628555${stamp}01`;
const second = `+1628555${stamp}02`;
const imported = `+1628555${stamp}03`;

test("suppressions: add, search in any format, import and export CSV, remove; the API sees the same list", async ({ page, snap }) => {
  await signIn(page, "admin");
  await openOrgPage(page, "/suppressions");
  await expect(page.getByRole("heading", { name: "Suppressions", level: 1 })).toBeVisible();

  await page.getByLabel("Phone numbers").fill(`${first}\n(628) 555-${stamp}02`);
  await page.getByLabel("Reason (optional)").fill("asked by email");
  await page.getByRole("button", { name: "Add to list" }).click();
  await expect(page.getByTestId("suppression-outcome")).toContainText("Added 2, already on the list 0");
  await expect(page.getByTestId(`suppression-${first}`)).toContainText("asked by email");
  await expect(page.getByTestId(`suppression-${second}`)).toContainText("console");

  // Search in another format.
  await page.getByLabel("Find a number").fill(`628.555.${stamp}02`);
  await page.getByRole("button", { name: "Search" }).click();
  await expect(page.getByTestId(`suppression-${second}`)).toBeVisible();
  await expect(page.getByTestId(`suppression-${first}`)).toHaveCount(0);
  await page.getByLabel("Find a number").fill("");
  await page.getByRole("button", { name: "Search" }).click();

  // CSV import: the phone column is found by its header; a bad line is reported by its line.
  await page.getByLabel("Reason (optional)").fill("");
  await page.getByLabel("Import a CSV").setInputFiles({
    name: "numbers.csv",
    mimeType: "text/csv",
    buffer: Buffer.from(`name,phone\nIda,${imported}\nBad,not a number\nAgain,${first}\n`),
  });
  await expect(page.getByTestId("suppression-outcome")).toContainText("Added 1, already on the list 1, not phone numbers 1");
  await expect(page.getByTestId(`suppression-${imported}`)).toContainText("import");
  await snap("suppressions");

  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const csv = readFileSync((await (await downloadPromise).path())!, "utf8");
  expect(csv.split(/\r?\n/)[0]).toBe("phoneNumber,source,reason,createdAt");
  expect(csv).toContain(`${first},console,asked by email,`);
  expect(csv).toContain(`${imported},import,,`);

  const row = page.getByTestId(`suppression-${first}`);
  await row.getByRole("button", { name: "Remove" }).click();
  await page.getByRole("alertdialog").getByRole("button", { name: "Remove from list" }).click();
  await expect(page.getByTestId(`suppression-${first}`)).toHaveCount(0);

  const key = primaryOrg().apiKey;
  expect((await api(`/suppressions?phoneNumber=${encodeURIComponent(first)}`, key)).body.suppressions).toEqual([]);
  const listed = await api(`/suppressions?phoneNumber=${encodeURIComponent(imported)}`, key);
  expect(listed.body.suppressions).toEqual([{ phoneNumber: imported, reason: null, source: "import", createdAt: expect.any(String) }]);
  // Clean up for other specs and reruns.
  for (const number of [second, imported]) expect((await api(`/suppressions/${encodeURIComponent(number)}`, key, { method: "DELETE" })).status).toBe(200);
});

test("suppressions: a member reads the list but cannot add or remove", async ({ page }) => {
  const key = primaryOrg().apiKey;
  const number = `+1628555${stamp}09`;
  await api("/suppressions", key, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ phoneNumbers: [number] }) });
  await signIn(page, "member");
  await openOrgPage(page, "/suppressions");
  await expect(page.getByTestId(`suppression-${number}`)).toBeVisible();
  await expect(page.getByRole("button", { name: "Add to list" })).toHaveCount(0);
  await expect(page.getByTestId(`suppression-${number}`).getByRole("button", { name: "Remove" })).toHaveCount(0);
  await api(`/suppressions/${encodeURIComponent(number)}`, key, { method: "DELETE" });
});
