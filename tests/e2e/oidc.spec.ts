import type { Server } from "node:http";
import Provider from "oidc-provider";
import { expect, primaryOrg, test } from "./fixtures";

/**
 * A real OpenID provider (oidc-provider) on the port the app was configured with (AUTH_OIDC_ISSUER). Its accounts
 * carry the organization claim `org_id` (our organizations.orgId) and a role claim.
 */
let server: Server;

test.beforeAll(async () => {
  const port = Number(process.env.E2E_OIDC_PORT);
  const appUrl = `http://localhost:${process.env.E2E_PORT}`;
  const provider = new Provider(`http://127.0.0.1:${port}`, {
    clients: [
      {
        client_id: process.env.E2E_OIDC_CLIENT_ID!,
        client_secret: process.env.E2E_OIDC_CLIENT_SECRET!,
        redirect_uris: [`${appUrl}/api/auth/callback/oidc`],
        grant_types: ["authorization_code"],
        response_types: ["code"],
      },
    ],
    claims: { openid: ["sub", "org_id", "org_role"], email: ["email", "email_verified"], profile: ["name"] },
    // Put the scope claims into the ID token (next-auth reads the profile from it).
    conformIdTokenClaims: false,
    findAccount: async (_ctx, sub) => ({
      accountId: sub,
      claims: async () => ({
        sub,
        email: sub.includes("@") ? sub : `${sub}@sso.test`,
        email_verified: !sub.startsWith("unverified"),
        name: "Sso Person",
        org_id: sub.startsWith("stranger") ? "org_does_not_exist" : primaryOrg().orgId,
        org_role: "support",
      }),
    }),
  });
  server = provider.listen(port);
});

test.afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
});

async function signInAtProvider(page: import("@playwright/test").Page, login: string) {
  await page.goto("/sign-in");
  await page.getByRole("button", { name: "Sign in with Test IdP" }).click();
  await page.locator('input[name="login"]').fill(login);
  await page.locator('input[name="password"]').fill("anything");
  await page.locator('button[type="submit"]').click();
  // Consent screen of the provider's development interactions.
  await page.waitForURL((url) => url.port === process.env.E2E_PORT || /\/interaction\//.test(url.pathname));
  if (/\/interaction\//.test(new URL(page.url()).pathname)) await page.locator('button[type="submit"]').click();
}

test("OIDC sign-in: the IdP's organization claim selects the organization and provisions the member", async ({ page, snap }) => {
  const email = `sso.${Date.now()}@sso.test`;
  await signInAtProvider(page, email);
  await expect(page).toHaveURL(new RegExp(`/${primaryOrg().orgId}$`));
  await expect(page.getByText(email)).toBeVisible();
  await expect(page.getByText("Role: support")).toBeVisible();
  await page.getByRole("link", { name: "Members" }).click();
  const row = page.getByRole("row").filter({ hasText: email });
  await expect(row).toContainText("Single sign-on");
  await expect(row).toContainText("Support");
  await snap("members-after-sso");
  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/sign-in/);
});

test("OIDC sign-in is refused when the organization claim names no organization here", async ({ page }) => {
  await signInAtProvider(page, `stranger.${Date.now()}@sso.test`);
  await expect(page).toHaveURL(/\/sign-in\?error=NoOrganization/);
  await expect(page.getByText("did not name an organization")).toBeVisible();
});

test("OIDC sign-in is refused when the IdP says the email address is not verified", async ({ page }) => {
  await signInAtProvider(page, `unverified.${Date.now()}@sso.test`);
  await expect(page).toHaveURL(/\/sign-in\?error=EmailNotVerified/);
  await expect(page.getByText("has not verified your email address")).toBeVisible();
});
