import { api, demoData, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * A support member manages the meeting booked during a call: adds an attendee (the API's validation shown field by
 * field), cancels it, and sees the reconciled state once the background reconciliation (Inngest, embedded runner) has
 * run. The meeting is the seed's `fixtures.cancellableMeetingEntityId` (DESIGN §9).
 */

function cancellableMeeting(): string | null {
  const org = demoData().organizations.find((o) => o.key === "primary") as { fixtures?: { cancellableMeetingEntityId?: string } } | undefined;
  return org?.fixtures?.cancellableMeetingEntityId ?? null;
}

test("a support member adds an attendee and cancels the meeting; the reconciled state is shown", async ({ page, snap, allowConsoleErrors }) => {
  // Sign-in, an attendee added, a cancel and up to a minute for the asynchronous reconciliation under CI load.
  test.slow();
  const entityId = cancellableMeeting();
  test.skip(!entityId, "The demo seed has no cancellable meeting yet (DESIGN §9 fixtures.cancellableMeetingEntityId).");
  const org = primaryOrg();
  const guest = `e2e.guest.${Date.now()}@example.org`;

  await signIn(page, "support");
  await openOrgPage(page, `/calls/${encodeURIComponent(entityId!)}`);
  const panel = page.getByTestId("meeting-panel");
  await expect(panel.getByTestId("meeting-status")).toHaveText("Booked");
  await expect(panel.getByTestId("reconciliation")).toHaveAttribute("data-reconciled", "true");
  await expect(panel.getByTestId("attendees").getByRole("row")).not.toHaveCount(1);

  // The API's own validation, beside the field.
  allowConsoleErrors(/status of 400/);
  await panel.getByLabel("Email (required)").fill("not-an-email");
  await panel.getByRole("button", { name: "Add attendee" }).click();
  await expect(panel.getByText("must be a valid email address")).toBeVisible();

  await panel.getByLabel("Email (required)").fill(guest);
  await panel.getByLabel("Name").fill("E2E Guest");
  await panel.getByLabel("Time zone").fill("Europe/Berlin");
  await panel.getByRole("button", { name: "Add attendee" }).click();
  await expect(panel.getByTestId("attendees")).toContainText(guest);
  const listed = await api(`/conversations/meetings/${encodeURIComponent(entityId!)}/attendees`, org.apiKey);
  expect(listed.body.attendees.map((a: { email: string }) => a.email)).toContain(guest);
  await snap("call-view-meeting");

  await panel.getByLabel("Reason (sent to the provider and the attendees)").fill("Customer asked to reschedule");
  await panel.getByRole("button", { name: "Cancel meeting" }).click();
  await page.getByRole("alertdialog", { name: "Cancel this meeting?" }).getByRole("button", { name: "Cancel meeting" }).click();
  await expect(panel.getByTestId("cancel-confirmed")).toBeVisible();
  await expect(panel.getByTestId("meeting-status")).toHaveText("Cancelled");
  // Reconciled asynchronously: the page says so until it has happened, then shows the stored state.
  // Asynchronous (reconcile-meeting); allow two retries of a failed step (10–12 s, then 20–24 s) as in meetings-page.
  await expect(panel.getByTestId("reconciliation")).toHaveAttribute("data-reconciled", "true", { timeout: 60_000 });
  await expect(panel.getByTestId("reconciliation")).toContainText("cancelled");
  const metadata = await api(`/recordings/${encodeURIComponent(entityId!)}`, org.apiKey);
  const sequenceId = metadata.body.recording.sequenceId as string;
  const conversation = await api(`/conversations/metadata/${encodeURIComponent(sequenceId)}`, org.apiKey);
  const call = (conversation.body.metadata as Array<{ callId: string; crmSchedulingDetails: { status?: string } }>).find((c) => c.callId === entityId);
  expect(call?.crmSchedulingDetails.status).toBe("cancelled");
  await expect(panel.getByLabel("Email (required)")).toHaveCount(0);
  await snap("call-view-meeting-cancelled");
});
