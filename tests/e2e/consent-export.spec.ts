import { readFileSync } from "node:fs";
import { api, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

const json = (body: unknown) => ({ method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });

test("compliance: contacts enrolled with consent appear in the consent CSV; require consent refuses contacts without it", async ({ page, snap }) => {
  const org = primaryOrg();
  const agentId = org.agents.find((agent) => agent.role === "link")!.agentId;
  const phoneNumber = `+1628555${String(Date.now() % 9000 + 1000)}`;
  const consent = { type: "express_written", capturedAt: "2026-10-02T09:30:00Z", source: "e2e signup form", evidenceUrl: "https://evidence.example.com/e2e.pdf" };
  const enrolled = await api(`/agents/${agentId}/schedule/sequence`, org.apiKey, json({ name: "Consent Person", phoneNumber, company_name: "Acme", consent }));
  expect(enrolled.status).toBe(201);
  expect(enrolled.body.sequence.consent).toEqual({ ...consent, capturedAt: "2026-10-02T09:30:00.000Z" });
  // A name a spreadsheet would run as a formula.
  const formulaPhone = `+1628555${String((Date.now() + 1) % 9000 + 1000)}`;
  expect((await api(`/agents/${agentId}/schedule/sequence`, org.apiKey, json({ name: "=1+1", phoneNumber: formulaPhone, company_name: "Acme", consent }))).status).toBe(201);

  await signIn(page, "admin");
  await openOrgPage(page, "/compliance");
  await expect(page.getByRole("heading", { name: "Compliance", level: 1 })).toBeVisible();
  await snap("compliance");

  const downloadPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  const csv = readFileSync((await (await downloadPromise).path())!, "utf8");
  // The consent columns, then each dialed call's disclosures (docs/compliance.md: one row per dialed call).
  expect(csv.split(/\r?\n/)[0]).toBe(
    "sequenceId,agentId,name,phoneNumber,enrolledAt,consentType,capturedAt,source,evidenceUrl,callId,dialedAt,identificationSpoken,identificationOffsetMs,identificationText,recordingNoticeRequired,recordingNoticeReason,recordingNoticeJurisdictions,recordingNoticeSpoken,recordingNoticeOffsetMs,recordingNoticeText,recording,recordingStoppedOffsetMs",
  );
  expect(csv).toContain(`${agentId},Consent Person,${phoneNumber},`);
  expect(csv).toContain("express_written,2026-10-02T09:30:00.000Z,e2e signup form,https://evidence.example.com/e2e.pdf");
  // Opens as text in a spreadsheet: the cell starts with '.
  expect(csv).toContain(`${agentId},"'=1+1",${formulaPhone},`);
  await expect(page.getByTestId("consent-export-count")).toContainText("exported");

  // A range without enrollments exports a header only.
  await page.getByLabel("Enrolled from").fill("2020-01-01");
  await page.getByLabel("to (inclusive)").fill("2020-01-31");
  const emptyPromise = page.waitForEvent("download");
  await page.getByRole("button", { name: "Export CSV" }).click();
  expect(readFileSync((await (await emptyPromise).path())!, "utf8").trim().split(/\r?\n/)).toHaveLength(1);
  await expect(page.getByTestId("consent-export-count")).toHaveText("0 records exported.");

  const requireConsent = page.getByLabel("Require a consent record for every enrolled contact");
  try {
    await requireConsent.click();
    await expect(requireConsent).toBeChecked();
    // Enabled again once the server has stored it.
    await expect(requireConsent).toBeEnabled();
    const refused = await api(`/agents/${agentId}/schedule/sequence`, org.apiKey, json({ name: "No Consent", phoneNumber: `+1628555${String(Date.now() % 9000 + 1000)}`, company_name: "Acme" }));
    expect(refused.status).toBe(400);
    expect(refused.body.error).toBe("MISSING_CONSENT");
  } finally {
    // Other specs enroll without consent.
    await page.reload();
    await expect(requireConsent).toBeEnabled();
    if (await requireConsent.isChecked()) await requireConsent.click();
    await expect(requireConsent).not.toBeChecked();
    await expect(requireConsent).toBeEnabled();
    await page.reload();
    await expect(requireConsent).not.toBeChecked();
  }
});
