import { mkdtempSync, writeFileSync } from "node:fs";
import os from "node:os";
import path from "node:path";
import type { Page } from "@playwright/test";
import { loadClip } from "@/server/simulators/voice-clips/clips";
import { ULAW_SILENCE, ulawChannelsToWav } from "@/server/voice/g711";
import { api, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * The fake microphone: a speech WAV (the simulators' espeak-ng clips, 8 kHz 16-bit) that Chromium plays as the
 * microphone, looping: "Hello, who is this?", 9 s of silence (the agent's intro plays), "Yes, that sounds good.
 * Please book it for Thursday afternoon.", then silence. The embedded Realtime simulator cannot recognize speech that
 * went through the browser's capture, so its test-call script answers by turn: the intro, then book_meeting.
 */
function speechWav(): string {
  const silence = (seconds: number) => Buffer.alloc(seconds * 8000, ULAW_SILENCE);
  const ulaw = Buffer.concat([silence(1), loadClip("callee.hello"), silence(9), loadClip("callee.yes-book"), silence(20)]);
  const file = path.join(mkdtempSync(path.join(os.tmpdir(), "ocs-fake-mic-")), "caller.wav");
  writeFileSync(file, ulawChannelsToWav([ulaw]));
  return file;
}

test.use({
  launchOptions: {
    executablePath: "/usr/bin/chromium",
    args: [
      "--no-sandbox",
      "--headless",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
      "--disable-quic",
      "--use-fake-ui-for-media-stream",
      "--use-fake-device-for-media-stream",
      `--use-file-for-fake-audio-capture=${speechWav()}`,
      "--autoplay-policy=no-user-gesture-required",
    ],
  },
});

/** The console's own tRPC endpoint (GET, the page's session and organization): what the overview and delivery log show. */
async function trpcQuery(page: Page, procedure: string, input: unknown) {
  const res = await page.request.get(`/api/trpc/${procedure}?input=${encodeURIComponent(JSON.stringify(input))}`, { headers: { "x-org-id": primaryOrg().orgId } });
  expect(res.status(), procedure).toBe(200);
  return ((await res.json()) as { result: { data: unknown } }).result.data;
}

test("an admin talks to the agent in the browser: agent audio, both sides of the transcript, a tool call; the call is kept under the agent's tests and changes no figures", async ({ page, snap }) => {
  test.slow();
  const org = primaryOrg();
  const agent = org.agents.find((candidate) => candidate.role === "link")!;
  await signIn(page, "admin");

  const figures = async () => ({
    credits: (await api(`/credits/usage?orgId=${encodeURIComponent(org.orgId)}`, org.apiKey)).body,
    overview: await trpcQuery(page, "overview.get", { days: 7 }),
    deliveries: await trpcQuery(page, "webhooks.listDeliveries", { limit: 100 }),
    suppressions: (await api(`/suppressions?limit=100`, org.apiKey)).body,
  });
  const before = await figures();

  await openOrgPage(page, `/agents/${encodeURIComponent(agent.agentId)}`);
  await page.getByRole("tab", { name: "Tests" }).click();
  const panel = page.getByRole("region", { name: "Test call" });
  await panel.getByLabel("Contact name").fill("Jordan Lee");
  await panel.getByLabel("Contact email").fill("jordan.lee@crm.example.com");
  await panel.getByLabel("Company name").fill("Northwind");
  await panel.getByRole("button", { name: "Start test call" }).click();
  await expect(panel.getByTestId("test-call-state")).toHaveText("live");

  // Both sides of the transcript, the agent's voice playing, then book_meeting with its result.
  await expect(panel.getByTestId("test-call-line-customer").first()).toBeVisible({ timeout: 30_000 });
  await expect(panel.getByTestId("test-call-line-agent").first()).toContainText("Do you have a minute", { timeout: 30_000 });
  await expect.poll(async () => page.getByTestId("test-call-audio").evaluate((audio: HTMLAudioElement) => !audio.paused && audio.srcObject !== null)).toBe(true);
  await expect.poll(async () => Number(await panel.getByTestId("test-call-peak").getAttribute("data-peak")), { timeout: 30_000 }).toBeGreaterThan(0.01);
  await expect(panel.getByTestId("test-call-tool").first()).toContainText("book_meeting", { timeout: 45_000 });
  await expect(panel.getByTestId("test-call-tool").first()).toContainText("nothing was booked");
  await expect(panel.getByTestId("test-call-latencies")).toContainText("ms");

  // The agent says goodbye and hangs up (end_call); if it has not yet, end it from the page.
  const ended = panel.getByTestId("test-call-state");
  await expect(ended).toHaveText("ended", { timeout: 30_000 }).catch(async () => {
    await panel.getByRole("button", { name: "End call" }).click();
    await expect(ended).toHaveText("ended");
  });

  // Kept under the agent's tests: completed, with transcript, recording and the analysed result.
  const calls = page.getByRole("region", { name: "Test calls" });
  const item = calls.getByTestId("test-call-item").first();
  await expect(item).toContainText("completed", { timeout: 30_000 });
  await item.getByText("Details", { exact: true }).click();
  await expect(item.getByRole("listitem").filter({ hasText: "book_meeting" }).first()).toBeVisible();
  // The analysed result as the webhook would carry it (the simulator does not transcribe browser speech, so the
  // result type is the rule-based analyser's reading of placeholders; the offered slot is there).
  await expect(item.locator("pre")).toContainText('"resultType"');
  await expect(item.locator("pre")).toContainText('"followUpMeetingDetails"');
  await expect(item.locator("audio")).toHaveAttribute("src", /\/api\/recordings\//);
  // Named by the contact and the time, not by its ID (docs/console.md: IDs sit behind a disclosure).
  await expect(item).toContainText("Jordan Lee");
  await expect(calls).not.toContainText("test-call.", { useInnerText: true });

  await snap("agent-tests");
  await expectNoSeriousA11yViolations(page, "agent tests tab");

  // A test call is not a call: the overview, credits, webhook deliveries and suppressions are as they were.
  const after = await figures();
  expect(after).toEqual(before);
});

test("a typed turn (the text box) is one line of the live transcript and of the kept test call, which is listed by contact and date, not by ID", async ({ page }) => {
  test.slow();
  const said = "Yes, please book a meeting for Tuesday morning.";
  const agent = primaryOrg().agents.find((candidate) => candidate.role === "link")!;
  await signIn(page, "admin");
  await openOrgPage(page, `/agents/${encodeURIComponent(agent.agentId)}`);
  await page.getByRole("tab", { name: "Tests" }).click();
  const live = page.getByRole("region", { name: "Test call", exact: true });
  await live.getByLabel("Contact name").fill("Avery Typed");
  await live.getByLabel("Contact email").fill("avery.typed@crm.example.com");
  await live.getByLabel("Company name").fill("Northwind");
  await live.getByRole("button", { name: "Start test call" }).click();
  await expect(live.getByTestId("test-call-state")).toHaveText("live");
  // The microphone says hello and the agent introduces itself (the session is up); then the caller types a turn.
  await expect(live.getByTestId("test-call-line-agent").first()).toContainText("Do you have a minute", { timeout: 30_000 });
  await live.getByRole("textbox", { name: "Say (typed)" }).fill(said);
  await live.getByRole("button", { name: "Say", exact: true }).click();

  // The agent answers the turn (book_meeting): by then every line of that turn has reached the page.
  await expect(live.getByTestId("test-call-tool").first()).toContainText("book_meeting", { timeout: 30_000 });
  const typedLines = live.getByTestId("test-call-line-customer").filter({ hasText: said });
  await expect(typedLines).toHaveCount(1);

  const state = live.getByTestId("test-call-state");
  await expect(state).toHaveText("ended", { timeout: 30_000 }).catch(async () => {
    await live.getByRole("button", { name: "End call" }).click();
    await expect(state).toHaveText("ended");
  });
  await expect(typedLines).toHaveCount(1);

  // The kept test call: once in its stored transcript too.
  const calls = page.getByRole("region", { name: "Test calls", exact: true });
  const item = calls.getByTestId("test-call-item").filter({ hasText: "Avery Typed" }).first();
  await expect(item).toContainText("completed", { timeout: 30_000 });
  await item.getByText("Details", { exact: true }).click();
  await expect(item.getByTestId("test-call-line-customer").filter({ hasText: said })).toHaveCount(1);

  // Listed by who was called and when, with the prompt version's number; IDs only behind the disclosure.
  await expect(item).toContainText(/Version \d+/);
  await expect(calls).not.toContainText("test-call.", { useInnerText: true });
  await expect(calls).not.toContainText("prompt-ver.", { useInnerText: true });
  await item.getByText("IDs", { exact: true }).click();
  await expect(item.getByText(/^test-call\./)).toBeVisible();
});
