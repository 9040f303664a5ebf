import { readFileSync } from "node:fs";
import path from "node:path";
import AxeBuilder from "@axe-core/playwright";
import { test as base, expect, type Page } from "@playwright/test";

export type DemoData = {
  baseUrl: string;
  dashboard: { url: string; users: Array<{ email: string; password: string; role: "admin" | "support" | "member" }> };
  organizations: Array<{ key: string; orgId: string; name: string; apiKey: string; agents: Array<{ agentId: string; name: string; role: string }> }>;
};

/** The credentials the app's first start seeded and wrote to $DATA_DIR/demo.json. */
export function demoData(): DemoData {
  return JSON.parse(readFileSync(path.join(process.env.E2E_DATA_DIR!, "demo.json"), "utf8")) as DemoData;
}

export function primaryOrg() {
  return demoData().organizations.find((org) => org.key === "primary")!;
}

export function demoUser(role: "admin" | "support" | "member") {
  return demoData().dashboard.users.find((user) => user.role === role)!;
}

export async function signIn(page: Page, role: "admin" | "support" | "member") {
  const user = demoUser(role);
  await page.goto("/sign-in");
  await page.getByLabel("Email").fill(user.email);
  await page.getByLabel("Password").fill(user.password);
  await page.getByRole("button", { name: "Sign in", exact: true }).click();
  await expect(page.getByRole("navigation", { name: "Main" })).toBeVisible();
}

/** Opens a console page of the primary organization. */
export async function openOrgPage(page: Page, subPath = "") {
  await page.goto(`/${encodeURIComponent(primaryOrg().orgId)}${subPath}`);
}

/** Calls the real REST API of the running app. */
export async function api(pathAndQuery: string, key: string, init: RequestInit = {}) {
  const res = await fetch(`http://localhost:${process.env.E2E_PORT}/api/v1${pathAndQuery}`, {
    ...init,
    headers: { "x-api-key": key, ...(init.headers ?? {}) },
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as any };
}

/**
 * Nothing on the page scrolls sideways: the document is no wider than the viewport. On failure the message names the
 * elements that stick out, so the culprit is found without opening the screenshot.
 */
export async function expectNoHorizontalScroll(page: Page, label = "page") {
  const overflow = await page.evaluate(() => {
    const root = document.scrollingElement ?? document.documentElement;
    if (root.scrollWidth <= root.clientWidth) return null;
    const wide = [...document.body.querySelectorAll<HTMLElement>("*")]
      .filter((el) => el.getBoundingClientRect().right > root.clientWidth + 1)
      .slice(-5)
      .map((el) => `${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ""}.${String(el.className).slice(0, 80)} (right ${Math.round(el.getBoundingClientRect().right)})`);
    return { scrollWidth: root.scrollWidth, clientWidth: root.clientWidth, wide };
  });
  expect(overflow, `${label} scrolls horizontally at ${page.viewportSize()?.width ?? "?"} px`).toBeNull();
}

/**
 * An axe-core scan of the page as it is now (WCAG 2.0/2.1 A and AA rules and axe's best practices): its serious and
 * critical violations, one line each with the rule, what it asks and the first elements that break it.
 */
export async function seriousA11yViolations(page: Page): Promise<string[]> {
  const results = await new AxeBuilder({ page })
    .withTags(["wcag2a", "wcag2aa", "wcag21a", "wcag21aa", "best-practice"])
    // Details of the violations only (passes and the rest are summarised): the scan is faster on long pages.
    .options({ resultTypes: ["violations"] })
    .analyze();
  return results.violations
    .filter((violation) => violation.impact === "serious" || violation.impact === "critical")
    .map((violation) => `${violation.impact} ${violation.id}: ${violation.help} — ${violation.nodes.map((node) => node.target.join(" ")).slice(0, 5).join(", ")}`);
}

/** An axe-core scan of the page: no serious or critical violations. */
export async function expectNoSeriousA11yViolations(page: Page, label = "page") {
  expect(await seriousA11yViolations(page), `axe violations on ${label}`).toEqual([]);
}

/** Layout and effects have caught up with a change (a resize, a click): two animation frames have passed. */
export async function nextFrames(page: Page) {
  await page.evaluate(() => new Promise<void>((resolve) => requestAnimationFrame(() => requestAnimationFrame(() => resolve()))));
}

/** The page is ready (its heading is shown, nothing is loading) before it is measured. */
export async function settle(page: Page, heading: string | RegExp) {
  await expect(page.getByRole("heading", { level: 1, name: heading }).first()).toBeVisible();
  await page.waitForLoadState("networkidle").catch(() => {});
  await expect(page.getByTestId("loading")).toHaveCount(0);
}

export type SeededIds = { agentId: string; sequenceId?: string; callId?: string };

/** The primary organization's first agent, and a sequence with a recorded call (the seed's call history), if any. */
export async function seededIds(): Promise<SeededIds> {
  const org = primaryOrg() as ReturnType<typeof primaryOrg> & { fixtures?: { sequenceIds?: string[] } };
  const agentId = org.agents[0]!.agentId;
  const sequenceIds = org.fixtures?.sequenceIds ?? [];
  if (sequenceIds.length === 0) return { agentId };
  // A call with a recording, so the call page shows the player and the transcript.
  const res = await api("/recordings", org.apiKey, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ sequenceIds: sequenceIds.slice(0, 20), includeTranscripts: true }),
  });
  expect(res.status).toBe(200);
  for (const sequence of res.body.recordings as Array<{ sequenceId: string; calls: Array<{ callId: string; recordingStatus: string }> }>) {
    const call = sequence.calls.find((c) => c.recordingStatus === "downloaded");
    if (call) return { agentId, sequenceId: sequence.sequenceId, callId: call.callId };
  }
  return { agentId, sequenceId: sequenceIds[0] };
}

type Fixtures = {
  /** Console errors that a test expects (e.g. the browser's log line for a deliberate 401); anything else fails the test. */
  allowConsoleErrors: (pattern: RegExp) => void;
  /**
   * Screenshots at desktop (1280) and mobile (390) widths into test-results/screenshots (not committed), asserting at
   * both widths that nothing scrolls horizontally.
   */
  snap: (name: string) => Promise<void>;
};

export const test = base.extend<Fixtures & { consoleGuard: void }>({
  consoleGuard: [
    async ({ page }, use) => {
      const errors: string[] = [];
      // Only our app's pages count: the test identity provider's own pages (fonts, favicon) are not ours.
      const ours = () => [`http://localhost:${process.env.E2E_PORT}`, `http://127.0.0.1:${process.env.E2E_PORT}`].some((origin) => page.url().startsWith(origin));
      page.on("console", (message) => {
        if (message.type() === "error" && ours()) errors.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on("pageerror", (error) => {
        if (ours()) errors.push(`pageerror: ${error.message}`);
      });
      (page as Page & { __consoleErrors?: string[] }).__consoleErrors = errors;
      await use();
      const allowed = (page as Page & { __allowedErrors?: RegExp[] }).__allowedErrors ?? [];
      const unexpected = errors.filter((e) => !allowed.some((pattern) => pattern.test(e)));
      expect(unexpected, "console errors on the page").toEqual([]);
    },
    { auto: true },
  ],
  allowConsoleErrors: async ({ page }, use) => {
    await use((pattern) => {
      const holder = page as Page & { __allowedErrors?: RegExp[] };
      holder.__allowedErrors = [...(holder.__allowedErrors ?? []), pattern];
    });
  },
  snap: async ({ page }, use) => {
    await use(async (name) => {
      const dir = path.resolve("test-results/screenshots");
      const original = page.viewportSize() ?? { width: 1280, height: 800 };
      await page.waitForLoadState("networkidle").catch(() => {});
      await page.screenshot({ path: path.join(dir, `${name}-desktop.png`), fullPage: true });
      await expectNoHorizontalScroll(page, name);
      await page.setViewportSize({ width: 390, height: 844 });
      await page.waitForTimeout(150);
      await page.screenshot({ path: path.join(dir, `${name}-mobile.png`), fullPage: true });
      await expectNoHorizontalScroll(page, name);
      await page.setViewportSize(original);
    });
  },
});

export { expect };

export { formatPhoneNumber as consoleNumber } from "../../app/_components/ui/format";

type OwnedNumber = { numberId: string; phoneNumber: string; status: string; capabilities: { voice: boolean; sms: boolean }; agents: Array<{ agentId: string; name: string }> };

/**
 * One of the organization's own active numbers that can call and text (docs/numbers.md: pools hold only those; the
 * demo seed gives each organization two fictional ones), for specs that fill an agent's pool.
 */
export async function ownedNumber(key: string): Promise<string> {
  const res = await api("/numbers", key);
  expect(res.status).toBe(200);
  const number = (res.body.numbers as OwnedNumber[]).find((n) => n.status === "active" && n.capabilities.voice && n.capabilities.sms);
  expect(number, "the demo organization owns an active number with voice and SMS").toBeDefined();
  return number!.phoneNumber;
}
