import { api, demoData, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * Support finds a customer from the header search box of any page by a phone number typed in another format than it
 * was enrolled with, opens the call and plays its recording. The customer is a seeded conversation (DESIGN §9) whose
 * call has audio, found through the real API as an integrator would.
 */

type RecordingEntry = { callId: string; recordingStatus: string; transcript?: string };

function seededSequenceIds(): string[] {
  const org = demoData().organizations.find((o) => o.key === "primary") as { fixtures?: { sequenceIds?: string[] } } | undefined;
  return org?.fixtures?.sequenceIds ?? [];
}

async function callWithAudio() {
  const org = primaryOrg();
  const ids = seededSequenceIds();
  for (let offset = 0; offset < ids.length; offset += 20) {
    const res = await api("/recordings", org.apiKey, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sequenceIds: ids.slice(offset, offset + 20), includeTranscripts: true }),
    });
    expect(res.status).toBe(200);
    for (const sequence of res.body.recordings as Array<{ sequenceId: string; calls: RecordingEntry[] }>) {
      const call = sequence.calls.find((c) => c.recordingStatus === "downloaded" && c.transcript);
      if (call) return { sequenceId: sequence.sequenceId, callId: call.callId };
    }
  }
  return null;
}

/** `+12125550110` → `(212) 555-0110`: how a person in the US would type it. */
function nationalFormat(e164: string): string {
  const digits = e164.replace(/^\+1/, "");
  return `(${digits.slice(0, 3)}) ${digits.slice(3, 6)}-${digits.slice(6)}`;
}

test("support finds a customer by a phone number typed in another format, opens the call and plays its audio", async ({ page, snap }) => {
  // A long flow (API lookups, sign-in, search, two axe scans, screenshots at two widths, the call page, audio). Its
  // 90 s timeouts were not the search: the trace showed the results ~6 s after typing, while browser launch (17 s),
  // sign-in (30 s) and one axe scan (10 s) ate the budget at a load average of 10 on 2 cores. Triple the budget.
  test.slow();
  test.skip(seededSequenceIds().length === 0, "The demo seed has no conversations.");
  const target = await callWithAudio();
  expect(target, "a seeded call with a recording").toBeTruthy();
  const org = primaryOrg();
  const meta = await api(`/conversations/metadata/${encodeURIComponent(target!.sequenceId)}`, org.apiKey);
  expect(meta.status).toBe(200);
  const first = meta.body.metadata[0] as { name: string; phoneNumber: string; agentName: string };
  expect(first.phoneNumber).toMatch(/^\+1\d{10}$/);

  await signIn(page, "support");
  // The header box is on every page: start from the credits page.
  await openOrgPage(page, "/credits");
  const search = page.getByRole("search", { name: "Find a customer" });
  await search.getByLabel("Find a customer").fill(nationalFormat(first.phoneNumber));
  const results = page.getByRole("region", { name: "Customers found" });
  const result = results.getByTestId("customer-result").filter({ has: page.locator(`a[href$="/sequences/${encodeURIComponent(target!.sequenceId)}"]`) });
  await expect(result).toBeVisible();
  await expect(result).toContainText(first.name);
  await expect(result).toContainText(first.phoneNumber);
  await expect(result).toContainText(`Agent ${first.agentName}`);
  await expect(result).toContainText("Matched on phone number");
  await expect(result).toContainText("Last result");
  await expect(result).toContainText("Next call");
  await expect(result).toContainText("Meeting");
  await expectNoSeriousA11yViolations(page, "customer search results");
  await snap("customer-search");

  // Enter opens the results as a page.
  await search.getByLabel("Find a customer").press("Enter");
  await expect(page.getByRole("heading", { name: "Find a customer", level: 1 })).toBeVisible();
  await expect(page.getByTestId("customers-count")).toBeVisible();
  await expectNoSeriousA11yViolations(page, "customers page");
  await snap("customers");

  const row = page.getByRole("main").getByTestId("customer-result").filter({ has: page.locator(`a[href$="/sequences/${encodeURIComponent(target!.sequenceId)}"]`) });
  await row.getByRole("link", { name: first.name }).click();
  await expect(page.getByRole("heading", { name: first.name, level: 1 })).toBeVisible();
  await page.locator(`a[href$="/calls/${encodeURIComponent(target!.callId)}"]`).first().click();
  await expect(page.getByTestId("call-id")).toHaveText(target!.callId);
  await expect(page.getByTestId("waveform")).toHaveAttribute("data-state", "ready");
  await page.getByTestId("play-toggle").click();
  const audio = page.getByTestId("call-audio");
  await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime > 0), { timeout: 10_000 }).toBe(true);
});

test("an ID typed in the header opens straight to the call", async ({ page }) => {
  test.skip(seededSequenceIds().length === 0, "The demo seed has no conversations.");
  const target = await callWithAudio();
  await signIn(page, "member");
  await page.getByRole("search", { name: "Find a customer" }).getByLabel("Find a customer").fill(target!.callId);
  const result = page.getByRole("region", { name: "Customers found" }).getByTestId("customer-result");
  await expect(result).toHaveCount(1);
  await expect(result).toContainText("Matched on ID");
  await result.getByRole("link", { name: /^Open call/ }).click();
  await expect(page.getByTestId("call-id")).toHaveText(target!.callId);
});

test("the conversations page opens on an active agent with its conversations", async ({ page }) => {
  await signIn(page, "support");
  await openOrgPage(page, "/conversations");
  const agent = page.getByLabel("Agent", { exact: true });
  await expect(agent).toHaveValue(/^agent\./);
  const label = await agent.evaluate((el: HTMLSelectElement) => el.selectedOptions[0]?.textContent ?? "");
  expect(label).not.toMatch(/archived/i);
});
