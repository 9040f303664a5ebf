import { expect, test, type BrowserContext, type Page } from "@playwright/test";
import { nextFrames, openOrgPage, primaryOrg, seededIds, seriousA11yViolations, settle, signIn, type SeededIds } from "./fixtures";

/**
 * Accessibility of every console page: an axe-core scan (WCAG 2.0/2.1 A and AA rules and best practices, the `fixtures.ts`
 * helper) at 1280 and at 390 px wide, as each role that sees something different, with no serious or critical violation
 * allowed. Admin sees every page with every action; support sees no admin page and no admin action; a member sees what
 * support sees except on the few pages that check `useCan().support` (a call's meeting actions, Hang up, suppressions),
 * so the member is scanned on those only.
 * At 390 px a wide table scrolls sideways in its own box, which axe checks can be reached by keyboard
 * (`scrollable-region-focusable`).
 *
 * One sign-in per role: the pages of a role are opened one after another in that role's signed-in page (a new one only
 * after a failure, when Playwright starts a new worker), which this spec watches for console errors itself (it uses
 * Playwright's plain `test`: the fixtures' per-test page would be one more browser context per test, unused). Layout at
 * both widths (no horizontal scroll, screenshots) is `pages.spec.ts`'s; the flows are in each area's spec.
 *
 * To add a page: one line in PAGES.
 */

type Role = "admin" | "support" | "member";

type ConsolePage = {
  name: string;
  /** Under `/{orgId}`; null when the demo seed has nothing to show there (the test is skipped). */
  path: (ids: SeededIds) => string | null;
  /** The page's h1: once shown (and nothing loading), the page is scanned. */
  heading: string | RegExp;
  /** Who is scanned on the page: admin and support when not given; add member where its view differs from support's. */
  roles?: Role[];
  /** A state reached from the loaded page (a tab, an expanded row), scanned instead of the page as loaded. */
  open?: (page: Page) => Promise<void>;
};

const ROLES: Role[] = ["admin", "support", "member"];
const STAFF: Role[] = ["admin", "support"];
const EVERYONE: Role[] = ["admin", "support", "member"];

const agentPage = (ids: SeededIds) => `/agents/${encodeURIComponent(ids.agentId)}`;

/** Opens a tab of the page and waits for its panel. */
const tab = (name: string) => async (page: Page) => {
  await page.getByRole("tab", { name }).click();
  await expect(page.getByRole("tabpanel", { name })).toBeVisible();
  await page.waitForLoadState("networkidle").catch(() => {});
  await expect(page.getByTestId("loading")).toHaveCount(0);
};

/**
 * Opens the first row's detail panel of a list (`rows`: a CSS selector), when the list has rows. (A job run expanded is
 * `pages.spec.ts`'s: this spec runs first, before any run exists.)
 */
const firstRowExpanded = (rows: string) => async (page: Page) => {
  const row = page.locator(rows).first();
  test.skip((await page.locator(rows).count()) === 0, `no ${rows} rows yet`);
  await row.getByRole("button", { expanded: false }).first().click();
  await expect(row.getByRole("button", { expanded: true }).first()).toBeVisible();
  await page.waitForLoadState("networkidle").catch(() => {});
  await expect(page.getByTestId("loading")).toHaveCount(0);
};

/** The Numbers page with its first number's health panel (chart, why it rests, daily cap) open. */
const numberOpened = async (page: Page) => {
  await page.getByRole("button", { name: /^Show the health of / }).first().click();
  await expect(page.getByTestId("number-health-chart").first()).toBeVisible();
  await page.waitForLoadState("networkidle").catch(() => {});
  await expect(page.getByTestId("loading")).toHaveCount(0);
};

const PAGES: ConsolePage[] = [
  { name: "overview", path: () => "", heading: primaryOrg().name },
  { name: "agents", path: () => "/agents", heading: "Agents" },
  { name: "new agent", path: () => "/agents/new", heading: /New agent|Create/, roles: ["admin"] },
  { name: "agent: Settings", path: agentPage, heading: /.+/ },
  { name: "agent: Enroll one contact", path: agentPage, heading: /.+/, roles: ["admin"], open: tab("Enroll one contact") },
  { name: "agent: Calling limits", path: agentPage, heading: /.+/, open: tab("Calling limits") },
  { name: "agent: Tests", path: agentPage, heading: /.+/, open: tab("Tests") },
  { name: "conversations", path: () => "/conversations", heading: "Conversations" },
  { name: "conversation", path: (ids) => (ids.sequenceId ? `/sequences/${encodeURIComponent(ids.sequenceId)}` : null), heading: /.+/ },
  { name: "call", path: (ids) => (ids.callId ? `/calls/${encodeURIComponent(ids.callId)}` : null), heading: /.+/, roles: EVERYONE },
  { name: "import", path: () => "/import", heading: /Import/, roles: ["admin"] },
  { name: "live calls", path: () => "/live-calls", heading: "Live calls", roles: EVERYONE },
  { name: "customers", path: () => "/customers?q=a", heading: "Find a customer" },
  { name: "meetings", path: () => "/meetings", heading: "Meetings" },
  { name: "meetings: a meeting opened", path: () => "/meetings", heading: "Meetings", roles: EVERYONE, open: firstRowExpanded('[data-testid^="meeting-"]') },
  { name: "messaging", path: () => "/messaging", heading: "Messaging" },
  { name: "numbers", path: () => "/numbers", heading: "Numbers", roles: EVERYONE },
  { name: "numbers: a number opened", path: () => "/numbers", heading: "Numbers", open: numberOpened },
  { name: "credits", path: () => "/credits", heading: "Credits" },
  { name: "suppressions", path: () => "/suppressions", heading: "Suppressions", roles: EVERYONE },
  { name: "compliance", path: () => "/compliance", heading: "Compliance" },
  { name: "webhooks", path: () => "/webhooks", heading: "Webhooks" },
  { name: "integrations", path: () => "/integrations", heading: "Integrations" },
  { name: "jobs", path: () => "/jobs", heading: "Jobs", roles: ["admin"] },
  { name: "api keys", path: () => "/api-keys", heading: "API keys", roles: ["admin"] },
  { name: "members", path: () => "/members", heading: "Members" },
  { name: "account", path: () => "/account", heading: "Account" },
];

const DESKTOP = { width: 1280, height: 800 };
const PHONE = { width: 390, height: 844 };

let ids: SeededIds;
test.beforeAll(async () => {
  ids = await seededIds();
});

for (const role of ROLES) {
  test.describe(`as ${role}`, () => {
    let context: BrowserContext;
    let page: Page;
    /** Console errors of the shared page since the current test began (the `consoleGuard` fixture watches only its own page). */
    let errors: string[] = [];

    test.beforeAll(async ({ browser }) => {
      // A context of our own (axe's AxeBuilder refuses a page made by browser.newPage()).
      context = await browser.newContext({ viewport: DESKTOP });
      page = await context.newPage();
      page.on("console", (message) => {
        if (message.type() === "error") errors.push(`console: ${message.text()} (${message.location().url})`);
      });
      page.on("pageerror", (error) => errors.push(`pageerror: ${error.message}`));
      await signIn(page, role);
    });
    test.afterAll(async () => {
      await context?.close();
    });

    for (const entry of PAGES.filter((candidate) => (candidate.roles ?? STAFF).includes(role))) {
      test(`${entry.name}: no serious axe violation at 1280 or 390 px`, async () => {
        const sub = entry.path(ids);
        test.skip(sub === null, "the demo seed has nothing to show on this page");
        errors = [];
        await page.setViewportSize(DESKTOP);
        await openOrgPage(page, sub!);
        await settle(page, entry.heading);
        await entry.open?.(page);
        const desktop = await seriousA11yViolations(page);
        await page.setViewportSize(PHONE);
        await nextFrames(page);
        const phone = await seriousA11yViolations(page);
        expect({ "1280 px": desktop, "390 px": phone }, `axe violations on ${entry.name} as ${role}`).toEqual({ "1280 px": [], "390 px": [] });
        expect(errors, "console errors on the page").toEqual([]);
      });
    }

    if (role !== "admin") return;
    test("a table wider than the phone is a named region reached with Tab and scrolled with the arrow keys; a table that fits is no tab stop", async () => {
      errors = [];
      await page.setViewportSize(PHONE);
      await openOrgPage(page, "/compliance");
      await settle(page, "Compliance");
      const region = page.getByRole("region", { name: "Calling hours by jurisdiction" });
      await expect(region).toHaveAttribute("tabindex", "0");
      const scrollable = await region.evaluate((el) => el.scrollWidth > el.clientWidth);
      expect(scrollable, "the table is wider than its box at 390 px").toBe(true);

      // Tab from the top of the page until the table's box has focus (the stops before it: skip link, menu, search, …).
      await page.locator("body").focus();
      let reached = false;
      for (let stop = 0; stop < 80 && !reached; stop += 1) {
        await page.keyboard.press("Tab");
        reached = await region.evaluate((el) => el === document.activeElement);
      }
      expect(reached, "Tab reaches the table's scroll box").toBe(true);
      const outline = await region.evaluate((el) => {
        const style = getComputedStyle(el);
        return { visible: el.matches(":focus-visible"), style: style.outlineStyle, width: parseFloat(style.outlineWidth) };
      });
      expect(outline.visible).toBe(true);
      expect(outline.style).not.toBe("none");
      expect(outline.width).toBeGreaterThan(0);

      expect(await region.evaluate((el) => el.scrollLeft)).toBe(0);
      await page.keyboard.press("ArrowRight");
      await page.keyboard.press("ArrowRight");
      await expect.poll(() => region.evaluate((el) => el.scrollLeft)).toBeGreaterThan(0);

      // Wide enough for the table: a plain box again, not a tab stop nor a landmark.
      await page.setViewportSize(DESKTOP);
      await nextFrames(page);
      const box = page.locator("[data-slot=table-wrapper]").filter({ has: page.locator("caption", { hasText: "Calling hours by jurisdiction" }) });
      await expect(box).not.toHaveAttribute("tabindex");
      await expect(box).not.toHaveAttribute("role");
      expect(errors, "console errors on the page").toEqual([]);
    });
  });
}
