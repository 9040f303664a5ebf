import { api, demoData, expect, openOrgPage, primaryOrg, signIn, test } from "./fixtures";

/**
 * Listen live: a supervisor hears a simulated call from the Live calls page (the embedded simulator synthesizes the
 * call's audio where the listener is; docs/call-engine.md "Listening in"), and a call of another organization cannot
 * be listened to — its socket never opens.
 */
async function enrollLongCall(key: string, agentId: string, name: string) {
  // A number ending in 1: the contact answers and talks for 90-240 simulated seconds (tens of seconds here).
  const phoneNumber = `+12125550${String(Math.floor(Math.random() * 100)).padStart(2, "0")}1`;
  const enrolled = await api(`/agents/${encodeURIComponent(agentId)}/schedule/sequence`, key, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ name, phoneNumber, timezone: "America/New_York", bypassCallWindows: true, company_name: "Listen Corp" }),
  });
  expect(enrolled.status, JSON.stringify(enrolled.body)).toBe(201);
  return enrolled.body.sequence.sequenceId as string;
}

test("a supervisor listens to a live call: the audio element plays non-silent audio, and stopping leaves the call on", async ({ page }) => {
  const org = primaryOrg();
  const agent = org.agents.find((a) => a.role === "crm") ?? org.agents[0]!;
  const name = `Listened Caller ${Date.now()}`;
  await signIn(page, "support");
  await openOrgPage(page, "/live-calls");
  await enrollLongCall(org.apiKey, agent.agentId, name);

  const card = page.locator('[data-testid^="live-call-"]').filter({ hasText: name });
  await expect(card).toBeVisible({ timeout: 45_000 });
  await card.getByRole("button", { name: `Listen to the call with ${name}` }).click();
  await expect(card.getByRole("status").filter({ hasText: "Live" })).toBeVisible({ timeout: 10_000 });
  const audio = card.getByTestId("listen-audio");
  await expect.poll(async () => audio.evaluate((element: HTMLAudioElement) => !element.paused && element.srcObject !== null), { timeout: 10_000 }).toBe(true);
  // Sound, not silence: the level of what the element plays (Web Audio analyser on the same signal).
  await expect.poll(async () => Number(await audio.getAttribute("data-level")), { timeout: 10_000 }).toBeGreaterThan(0.01);
  const playedFrom = await audio.evaluate((element: HTMLAudioElement) => element.currentTime);
  await expect.poll(async () => audio.evaluate((element: HTMLAudioElement) => element.currentTime), { timeout: 5_000 }).toBeGreaterThan(playedFrom + 0.5);

  await card.getByRole("button", { name: `Stop listening to the call with ${name}` }).click();
  await expect(card.getByRole("button", { name: `Listen to the call with ${name}` })).toBeVisible();
  // The call goes on: still answered, its transcript still growing.
  await expect(card.getByTestId("live-state")).toContainText("Answered");
});

test("members of another organization cannot open a call's listen socket", async ({ page, allowConsoleErrors }) => {
  // The refused handshake is what the browser logs as an error: the one this test expects.
  allowConsoleErrors(/WebSocket connection to .*\/ws\/listen\?callId=.* failed: .*Unexpected response code: 404/);
  const secondary = demoData().organizations.find((org) => org.key === "secondary")!;
  const sequenceId = await enrollLongCall(secondary.apiKey, secondary.agents[0]!.agentId, `Globex Caller ${Date.now()}`);
  let callId = "";
  await expect
    .poll(
      async () => {
        const meta = await api(`/conversations/metadata/${encodeURIComponent(sequenceId)}`, secondary.apiKey);
        const call = (meta.body?.metadata as Array<{ callId: string; callStatus: string }> | undefined)?.[0];
        callId = call?.callId ?? "";
        return call?.callStatus ?? "none";
      },
      { timeout: 30_000 },
    )
    .toBe("calling");

  // The support user of the primary organization only: a supervisor there, nobody in Globex.
  await signIn(page, "support");
  const outcome = await page.evaluate(
    (id) =>
      new Promise<string>((resolve) => {
        const ws = new WebSocket(`ws://${window.location.host}/ws/listen?callId=${encodeURIComponent(id)}`);
        ws.onopen = () => resolve("opened");
        ws.onclose = () => resolve("refused");
        setTimeout(() => resolve("timeout"), 10_000);
      }),
    callId,
  );
  expect(outcome).toBe("refused");
});
