import { readFileSync } from "node:fs";
import Papa from "papaparse";
import { api, expect, openOrgPage, primaryOrg, signIn, test, type DemoData } from "./fixtures";

/**
 * An admin imports a CSV of 2,500 rows, 40 of them bad, into the link agent: visible progress over batches and
 * sequences, the 2,460 sequences present through /api/v1, the rejected-rows file with 40 reasons; then the same file
 * imported again schedules nobody twice.
 */

const AREA_CODES = ["201", "202", "203", "205", "206", "207", "208", "209", "210", "212", "213", "214", "215", "216", "217", "218", "219", "224", "225", "228", "229", "231", "234", "239", "240"];

/**
 * A future UTC day on which the demo data has no other calls: every imported call is due then (window 0–1440).
 * A retry of the test uses another day (and so another file), so it starts from zero again.
 */
function importDay(retry: number): string {
  return new Date(Date.now() + (21 + retry) * 86_400_000).toISOString().slice(0, 10);
}

/**
 * 2,500 rows; rows 3, 65, 127, … (every 62nd, 40 in all, across the three batches of 1,000) are bad, cycling through
 * a missing name, an invalid number, an invalid time zone, a missing required company_name and the first row's number
 * written another way (a duplicate in the same batch once, in later batches seven times).
 */
function buildCsv(scheduledAt: string) {
  const numbers = AREA_CODES.flatMap((code) => Array.from({ length: 100 }, (_, i) => `+1${code}55501${String(i).padStart(2, "0")}`));
  const kinds = ["MISSING_NAME", "INVALID_PHONE_NUMBER", "INVALID_TIMEZONE", "MISSING_INPUT_VARIABLE", "DUPLICATE_PHONE_NUMBER"] as const;
  const rows: string[][] = [];
  const expectedReasons: string[] = [];
  let next = 0;
  for (let i = 0; i < 2500; i++) {
    const bad = i % 62 === 3 && i < 62 * 40 ? kinds[((i - 3) / 62) % kinds.length]! : null;
    const row = [`Contact ${i}`, "", `contact${i}@example.org`, "", scheduledAt, `Company ${i}`, `CRM-${i}`];
    if (bad === "INVALID_PHONE_NUMBER") row[1] = "555-12";
    else if (bad === "DUPLICATE_PHONE_NUMBER") row[1] = `(${numbers[0]!.slice(2, 5)}) ${numbers[0]!.slice(5, 8)}-${numbers[0]!.slice(8)}`;
    else row[1] = numbers[next++]!;
    if (bad === "MISSING_NAME") row[0] = "";
    if (bad === "INVALID_TIMEZONE") row[3] = "Mars/Olympus_Mons";
    if (bad === "MISSING_INPUT_VARIABLE") row[5] = "";
    if (bad) expectedReasons.push(bad);
    rows.push(row);
  }
  const csv = Papa.unparse({ fields: ["Full name", "Phone", "Email", "Time zone", "Scheduled at", "Company name", "crm_ref"], data: rows });
  return { csv, expectedReasons };
}

async function importedCount(day: string, agentId: string, apiKey: string): Promise<number> {
  const res = await api(`/conversations/search/${encodeURIComponent(agentId)}?start=${day}&end=${day}&limit=1`, apiKey);
  expect(res.status).toBe(200);
  return res.body.total as number;
}

test("an admin imports 2,500 rows with 40 bad ones; the same import again schedules nobody twice", async ({ page, snap }) => {
  test.setTimeout(240_000);
  const org = primaryOrg() as DemoData["organizations"][number];
  const agent = org.agents.find((a) => a.role === "link")!;
  const day = importDay(test.info().retry);
  const { csv, expectedReasons } = buildCsv(`${day}T15:00:00Z`);
  expect(expectedReasons).toHaveLength(40);
  expect(await importedCount(day, agent.agentId, org.apiKey)).toBe(0);
  const file = { name: "contacts-2500.csv", mimeType: "text/csv", buffer: Buffer.from(csv, "utf8") };

  await signIn(page, "admin");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Import contacts" }).click();
  await page.getByLabel("Find agent").fill(agent.name);
  await page.getByLabel("Agent", { exact: true }).selectOption({ label: agent.name });
  await page.getByLabel("CSV file").setInputFiles(file);
  await expect(page.getByTestId("file-summary")).toContainText("2,500 rows, 7 columns");
  // Auto-mapped by header; the agent's variables by slug or display name.
  await expect(page.getByLabel("Name", { exact: true })).toHaveValue("Full name");
  await expect(page.getByLabel("Phone number")).toHaveValue("Phone");
  await expect(page.getByLabel("Scheduled at")).toHaveValue("Scheduled at");
  await expect(page.getByLabel("Variable name for column Company name")).toHaveValue("company_name");
  await snap("import-mapping");

  await page.getByRole("button", { name: "Check rows" }).click();
  await expect(page.getByTestId("ready-count")).toHaveText("2,460", { timeout: 60_000 });
  await expect(page.getByTestId("problem-count")).toHaveText("40");
  await snap("import-preview");

  await page.getByRole("button", { name: "Import 2,460 contacts" }).click();
  await expect(page.getByTestId("batches-sent")).toHaveText("3", { timeout: 60_000 });
  await expect(page.locator("#batches-progress")).toHaveAttribute("value", "3");
  await expect(page.getByTestId("import-result")).toContainText("Import complete: 2,460 sequences created.", { timeout: 120_000 });
  await expect(page.getByTestId("sequences-created")).toHaveText("2,460");
  await snap("import-done");
  expect(await importedCount(day, agent.agentId, org.apiKey)).toBe(2460);

  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Download rejected rows (CSV)" }).click();
  const download = await downloadPromise;
  const rejected = Papa.parse<Record<string, string>>(readFileSync((await download.path())!, "utf8"), { header: true, skipEmptyLines: true });
  expect(rejected.meta.fields?.slice(0, 3)).toEqual(["row", "reason", "error"]);
  expect(rejected.data).toHaveLength(40);
  expect(rejected.data.map((r) => r.reason).sort()).toEqual([...expectedReasons].sort());
  expect(rejected.data.every((r) => Boolean(r.error) && Number(r.row) >= 1)).toBe(true);

  // The same file again, from a fresh page: the per-batch idempotency keys are the same, nothing is scheduled twice.
  await page.reload();
  await page.getByLabel("Find agent").fill(agent.name);
  await page.getByLabel("Agent", { exact: true }).selectOption({ label: agent.name });
  await page.getByLabel("CSV file").setInputFiles(file);
  await page.getByRole("button", { name: "Check rows" }).click();
  // The numbers are not enrolled twice by the preview either: it writes nothing.
  await expect(page.getByTestId("ready-count")).toHaveText("2,460", { timeout: 60_000 });
  await page.getByRole("button", { name: "Import 2,460 contacts" }).click();
  await expect(page.getByTestId("import-result")).toContainText("already submitted", { timeout: 60_000 });
  await snap("import-resubmitted");
  expect(await importedCount(day, agent.agentId, org.apiKey)).toBe(2460);
});

test("support and members cannot import", async ({ page }) => {
  await signIn(page, "support");
  await expect(page.getByRole("link", { name: "Import contacts" })).toHaveCount(0);
  await openOrgPage(page, "/import");
  await expect(page.getByRole("heading", { name: "Not allowed" })).toBeVisible();
  const response = await page.request.post("/api/trpc/enrollment.submitImportBatch", {
    headers: { "x-org-id": primaryOrg().orgId, "content-type": "application/json" },
    data: { agentId: "agent.x", idempotencyKey: "k", contacts: [{ name: "A", phoneNumber: "+12015550101" }] },
  });
  expect(response.status()).toBe(403);
});
