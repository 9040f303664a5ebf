import type { Browser, Page, Request, Route } from "@playwright/test";
import { expect, primaryOrg, signIn, test } from "./fixtures";

/**
 * Forms that carry a secret, submitted before the page's scripts have loaded (a slow device or connection, a password
 * manager that fills and submits at once): the browser submits them natively. They are `method="post"`, so the password
 * goes in a request body and never into a URL — browser history, server and proxy logs.
 */

/** A browser whose pages never get their scripts (held back until the test ends), and every URL it requests. */
async function browserWithoutScripts(browser: Browser) {
  const context = await browser.newContext({ baseURL: `http://localhost:${process.env.E2E_PORT}` });
  const held: Route[] = [];
  await context.route(/\/_next\/static\/.*\.js(\?|$)/, (route) => void held.push(route));
  const requests: Request[] = [];
  context.on("request", (request) => requests.push(request));
  const page = await context.newPage();
  return {
    page,
    requests,
    async close() {
      for (const route of held) await route.abort().catch(() => {});
      await context.close();
    },
  };
}

async function submitByEnter(page: Page, field: string) {
  const navigation = page.waitForEvent("framenavigated");
  await page.getByLabel(field, { exact: true }).press("Enter");
  await navigation;
  await page.waitForLoadState("domcontentloaded");
}

test("sign-in and invitation forms submitted before hydration never put the password in a URL", async ({ page, browser }) => {
  const password = `Secret-${Date.now()}-pw`;
  const bare = await browserWithoutScripts(browser);
  try {
    // Sign-in.
    await bare.page.goto("/sign-in?callbackUrl=%2Fsomewhere", { waitUntil: "domcontentloaded" });
    await bare.page.getByLabel("Email").fill("someone@example.test");
    await bare.page.getByLabel("Password").fill(password);
    await submitByEnter(bare.page, "Password");
    const signInPost = bare.requests.find((request) => request.isNavigationRequest() && request.method() === "POST");
    expect(signInPost?.url()).toMatch(/\/sign-in\?callbackUrl=%2Fsomewhere$/);
    expect(signInPost?.postData()).toContain(encodeURIComponent(password));
    // The answer is the sign-in page again (the scripts were never there to sign in).
    await expect(bare.page.getByRole("heading", { name: "Sign in" })).toBeVisible();

    // The invitation's create-account form (a link shown to the admin: no mail server in the e2e app).
    await signIn(page, "admin");
    await page.goto(`/${encodeURIComponent(primaryOrg().orgId)}/members`);
    const email = `prehydration.${Date.now()}@example.test`;
    await page.getByLabel("Email").fill(email);
    await page.getByLabel("Role", { exact: true }).selectOption("member");
    await page.getByRole("button", { name: "Send invitation" }).click();
    const link = (await page.getByTestId("invite-link").textContent())!.trim();
    await bare.page.goto(link, { waitUntil: "domcontentloaded" });
    await bare.page.getByLabel("Your name").fill("Early Submitter");
    await bare.page.getByLabel("Password", { exact: true }).fill(password);
    await bare.page.getByLabel("Repeat the password").fill(password);
    await submitByEnter(bare.page, "Repeat the password");
    const invitePost = bare.requests.find((request) => request.isNavigationRequest() && request.method() === "POST" && request.url().includes("/invite/"));
    expect(invitePost, "the invitation form was submitted natively, as a POST").toBeDefined();

    const leaked = bare.requests.map((request) => request.url()).filter((url) => url.includes(password) || url.includes(encodeURIComponent(password)));
    expect(leaked).toEqual([]);
    expect(bare.requests.filter((request) => request.isNavigationRequest() && request.method() === "GET").map((request) => new URL(request.url()).search)).not.toContainEqual(
      expect.stringContaining("password"),
    );
  } finally {
    await bare.close();
  }
});
