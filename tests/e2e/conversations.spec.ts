import { api, demoData, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * Support staff find a conversation, play its recording and read its transcript. The conversations come from the demo
 * seed (DESIGN §9: `fixtures.sequenceIds`, 30 days of calls made by the call engine with recordings and transcripts);
 * which call has audio is asked of the real API (POST /recordings), as an integrator would.
 */

type RecordingEntry = { callId: string; recordingStatus: string; transcript?: string; scheduledAt?: string; stepNumber?: number };

function seededSequenceIds(): string[] {
  const org = demoData().organizations.find((o) => o.key === "primary") as { fixtures?: { sequenceIds?: string[] } } | undefined;
  return org?.fixtures?.sequenceIds ?? [];
}

const NO_FIXTURES = "The demo seed has no conversations yet (DESIGN §9 fixtures.sequenceIds is empty).";

async function findCalls() {
  const org = primaryOrg();
  const ids = seededSequenceIds();
  const found: { withAudio?: RecordingEntry & { sequenceId: string }; withoutAudio?: RecordingEntry & { sequenceId: string } } = {};
  for (let offset = 0; offset < ids.length && !(found.withAudio && found.withoutAudio); offset += 20) {
    const res = await api("/recordings", org.apiKey, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ sequenceIds: ids.slice(offset, offset + 20), includeTranscripts: true }),
    });
    expect(res.status).toBe(200);
    for (const sequence of res.body.recordings as Array<{ sequenceId: string; calls: RecordingEntry[] }>) {
      for (const call of sequence.calls) {
        if (!call.transcript) continue;
        if (call.recordingStatus === "downloaded") found.withAudio ??= { ...call, sequenceId: sequence.sequenceId };
        if (call.recordingStatus === "no-recording") found.withoutAudio ??= { ...call, sequenceId: sequence.sequenceId };
      }
    }
  }
  return found;
}

test.describe("conversations", () => {
  test("a support member finds a conversation, plays its recording and reads its transcript", async ({ page, snap }) => {
    test.skip(seededSequenceIds().length === 0, NO_FIXTURES);
    // Searching, paging to the sequence, then playing: more than the default 90 s on a loaded machine.
    test.slow();
    const { withAudio } = await findCalls();
    expect(withAudio, "a seeded call with a recording and a transcript").toBeTruthy();
    const target = withAudio!;
    const org = primaryOrg();
    const meta = await api(`/conversations/metadata/${encodeURIComponent(target.sequenceId)}`, org.apiKey);
    expect(meta.status).toBe(200);
    const call = (meta.body.metadata as Array<{ callId: string; agentId: string; agentName: string; name: string; scheduledAt: string }>).find((c) => c.callId === target.callId)!;
    const day = call.scheduledAt.slice(0, 10);

    await signIn(page, "support");
    await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Conversations" }).click();
    await expect(page.getByRole("heading", { name: "Conversations", level: 1 })).toBeVisible();
    await page.getByLabel("Find agent").fill(call.agentName);
    await expect(page.getByLabel("Agent", { exact: true })).toHaveValue(/^agent\./);
    await page.getByLabel("Agent", { exact: true }).selectOption({ label: call.agentName });
    await expect(page.getByLabel("Agent", { exact: true })).toHaveValue(call.agentId);
    await page.getByLabel("From (UTC day)").fill(day);
    await page.getByLabel("To (UTC day)").fill(day);
    await page.getByRole("button", { name: "Search" }).click();
    await expect(page.getByTestId("results-count")).toContainText("conversations");
    await snap("conversations-search");

    // Page through the results like the API pages (limit/offset) until the sequence shows up.
    const sequenceLink = page.locator(`a[href$="/sequences/${encodeURIComponent(target.sequenceId)}"]`);
    for (let i = 0; i < 40 && (await sequenceLink.count()) === 0; i++) {
      await page.getByRole("button", { name: "Next" }).click();
      await expect(page.getByTestId("conversations")).toBeVisible();
    }
    await sequenceLink.first().click();
    await expect(page.getByRole("heading", { name: call.name, level: 1 })).toBeVisible();
    await expect(page.getByTestId("steps")).toBeVisible();
    await snap("sequence-view");

    await page.locator(`a[href$="/calls/${encodeURIComponent(target.callId)}"]`).first().click();
    await expect(page.getByTestId("call-id")).toHaveText(target.callId);
    const firstLine = target.transcript!.split("\n")[0]!.replace(/^[^:]+:\s*/, "");
    await expect(page.getByTestId("transcript")).toContainText(firstLine);
    await expect(page.getByTestId("waveform")).toHaveAttribute("data-state", "ready");

    await page.getByTestId("play-toggle").click();
    await expect(page.getByTestId("play-toggle")).toHaveText("Pause");
    const audio = page.getByTestId("call-audio");
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => !el.paused && el.currentTime > 0), { timeout: 10_000 }).toBe(true);
    const first = await audio.evaluate((el: HTMLAudioElement) => el.currentTime);
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => el.currentTime), { timeout: 10_000 }).toBeGreaterThan(first);
    // It plays through the signed URL of GET /recordings/{callId}, not a copy.
    expect(await audio.evaluate((el: HTMLAudioElement) => el.currentSrc)).toMatch(/\/api\/recordings\/.+[?&]signature=/);

    // Seeking: the position slider moves the audio.
    await page.getByTestId("play-toggle").click();
    await page.getByLabel("Position in the recording").fill("0.5");
    await expect.poll(() => audio.evaluate((el: HTMLAudioElement) => Math.abs(el.currentTime - 0.5) < 0.05)).toBe(true);
    await snap("call-view-recording");
  });

  test("a call without a recording shows its transcript and says there is no audio", async ({ page, snap }) => {
    test.skip(seededSequenceIds().length === 0, NO_FIXTURES);
    const { withoutAudio } = await findCalls();
    expect(withoutAudio, "a seeded call with a transcript and no recording").toBeTruthy();
    await signIn(page, "support");
    // The callUrl of the payloads (`/calls/{callId}`) opens the call in its organization.
    await page.goto(`/calls/${encodeURIComponent(withoutAudio!.callId)}`);
    await expect(page).toHaveURL(new RegExp(`/${encodeURIComponent(primaryOrg().orgId)}/calls/`));
    await expect(page.getByTestId("no-audio")).toContainText("No audio");
    await expect(page.getByTestId("transcript")).toBeVisible();
    await expect(page.getByTestId("call-audio")).toHaveCount(0);
    await snap("call-view-no-audio");
  });

  test("an expired recording link is replaced by a fresh one", async ({ page, allowConsoleErrors }) => {
    test.skip(seededSequenceIds().length === 0, NO_FIXTURES);
    const { withAudio } = await findCalls();
    expect(withAudio).toBeTruthy();
    allowConsoleErrors(/status of 403/);
    // The first request of the audio element is answered as an expired link is.
    let refused = 0;
    await page.route("**/api/recordings/**", async (route) => {
      if (route.request().resourceType() === "media" && refused === 0) {
        refused++;
        await route.fulfill({ status: 403, contentType: "application/json", body: JSON.stringify({ error: "FORBIDDEN", message: "This recording link has expired." }) });
        return;
      }
      await route.continue();
    });
    await signIn(page, "support");
    await openOrgPage(page, `/calls/${encodeURIComponent(withAudio!.callId)}`);
    await expect(page.getByTestId("link-refreshed")).toBeVisible();
    expect(refused).toBe(1);
    await page.getByTestId("play-toggle").click();
    await expect
      .poll(() => page.getByTestId("call-audio").evaluate((el: HTMLAudioElement) => !el.paused && el.currentTime > 0), { timeout: 10_000 })
      .toBe(true);
  });
});
