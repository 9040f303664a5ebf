import { api, demoData, expect, expectNoSeriousA11yViolations, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * The meetings page as support uses it: meetings across the organization from our records, filtered; a past meeting
 * offers no cancel form; an upcoming one is cancelled from the list. Uses the seed's second cancellable meeting
 * (`fixtures.cancellableMeetingEntityId2`; meetings.spec.ts cancels the first) and its past one (DESIGN §9).
 */

type Fixtures = { cancellableMeetingEntityId2?: string | null; pastMeetingEntityId?: string | null };
function fixtures(): Fixtures {
  return (demoData().organizations.find((o) => o.key === "primary") as { fixtures?: Fixtures } | undefined)?.fixtures ?? {};
}

async function contactOf(callId: string) {
  const org = primaryOrg();
  const recording = await api(`/recordings/${encodeURIComponent(callId)}`, org.apiKey);
  const sequenceId = recording.body.recording.sequenceId as string;
  const meta = await api(`/conversations/metadata/${encodeURIComponent(sequenceId)}`, org.apiKey);
  return (meta.body.metadata as Array<{ callId: string; name: string; agentName: string }>).find((c) => c.callId === callId)!;
}

test("support filters meetings, sees a past one cannot be cancelled, and cancels an upcoming one from the list", async ({ page, snap }) => {
  // Sign-in, three filters, an axe scan, screenshots at two widths and a cancel: at a load average of 13 every step
  // passed and the 90 s ran out on the last click (the trace). Triple the budget.
  test.slow();
  const { cancellableMeetingEntityId2: upcomingId, pastMeetingEntityId: pastId } = fixtures();
  test.skip(!upcomingId || !pastId, "The demo seed has no meetings.");
  const upcoming = await contactOf(upcomingId!);

  await signIn(page, "support");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Meetings" }).click();
  await expect(page.getByRole("heading", { name: "Meetings", level: 1 })).toBeVisible();
  const table = page.getByTestId("meetings");
  // Upcoming by default: the past meeting is not listed.
  await expect(table.getByTestId(`meeting-${upcomingId}`)).toBeVisible();
  await expect(table.getByTestId(`meeting-${pastId}`)).toHaveCount(0);
  // The host column (wide screens) names the meeting's host.
  const host = (await table.getByTestId(`meeting-${upcomingId}`).getByRole("cell").nth(3).textContent())!.trim();
  expect(host).toMatch(/@/);
  await expectNoSeriousA11yViolations(page, "meetings");
  await snap("meetings");

  // Past meetings: the month-old one is there, and opening it offers no cancel form.
  await page.getByLabel("Show", { exact: true }).selectOption("past");
  await page.getByRole("button", { name: "Apply" }).click();
  const past = table.getByTestId(`meeting-${pastId}`);
  await expect(past).toBeVisible();
  await expect(past).toContainText("Started");
  await past.getByRole("button", { name: /Open the meeting with/ }).click();
  const pastPanel = page.getByTestId("meeting-panel");
  await expect(pastPanel.getByTestId("meeting-status")).toBeVisible();
  await expect(pastPanel.getByRole("button", { name: "Cancel meeting" })).toHaveCount(0);
  await expect(pastPanel.getByLabel("Email (required)")).toHaveCount(0);

  // Upcoming, this agent, this host.
  await page.getByLabel("Show", { exact: true }).selectOption("upcoming");
  await page.getByLabel("Agent", { exact: true }).selectOption({ label: upcoming.agentName });
  await page.getByLabel("Host email").fill(host);
  await page.getByRole("button", { name: "Apply" }).click();
  const row = table.getByTestId(`meeting-${upcomingId}`);
  await expect(row).toContainText(upcoming.name);
  await expect(row).toContainText("Booked");
  for (const text of await table.locator("tbody tr[data-testid^='meeting-']").allTextContents()) expect(text).not.toContain("Started");

  await row.getByRole("button", { name: /Open the meeting with/ }).click();
  const panel = page.getByTestId("meeting-panel");
  await expect(panel.getByTestId("meeting-status")).toHaveText("Booked");
  await panel.getByLabel("Reason (sent to the provider and the attendees)").fill("Cancelled from the meetings page");
  await panel.getByRole("button", { name: "Cancel meeting" }).click();
  await page.getByRole("alertdialog", { name: "Cancel this meeting?" }).getByRole("button", { name: "Cancel meeting" }).click();
  await expect(panel.getByTestId("cancel-confirmed")).toBeVisible();
  await expect(panel.getByTestId("meeting-status")).toHaveText("Cancelled");
  // The reconcile-meeting run is asynchronous; a step that fails once is retried 10–12 s later and again 20–24 s after
  // that (the runner's backoff). CI once saw it land between 30 and 60 s under load: allow the two retries.
  await expect(panel.getByTestId("reconciliation")).toHaveAttribute("data-reconciled", "true", { timeout: 60_000 });
  // The row stays under "Upcoming" while it is open (the list is not re-read under the user), its status updated.
  await expect(row).toContainText("Cancelled");

  // Our records now say cancelled: it moves to the Cancelled filter.
  await page.getByLabel("Show", { exact: true }).selectOption("cancelled");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(table.getByTestId(`meeting-${upcomingId}`)).toContainText("Cancelled");
  await snap("meetings-cancelled");
});

test("members read meetings without cancel or attendee forms", async ({ page }) => {
  const { pastMeetingEntityId: pastId } = fixtures();
  test.skip(!pastId, "The demo seed has no meetings.");
  await signIn(page, "member");
  await openOrgPage(page, "/meetings");
  await page.getByLabel("Show", { exact: true }).selectOption("all");
  await page.getByRole("button", { name: "Apply" }).click();
  await expect(page.getByTestId("meetings-count")).toContainText(/\d+ meetings?/);
  const first = page.getByTestId("meetings").locator("tbody tr[data-testid^='meeting-']").first();
  await first.getByRole("button", { name: /Open the meeting with/ }).click();
  await expect(page.getByTestId("meeting-panel")).toBeVisible();
  await expect(page.getByTestId("meeting-panel").getByRole("button", { name: "Cancel meeting" })).toHaveCount(0);
});
