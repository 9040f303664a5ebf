import { settingsOf } from "./setting";
import { flag, httpUrl, text } from "./value-types";

/**
 * Console sign-in: next-auth's URL, password sign-in, single sign-on (OIDC) and the operators (server/auth/next-auth.ts,
 * docs/security.md).
 */
const setting = settingsOf("Dashboard sign-in and email");

export const authSettings = {
  NEXTAUTH_URL: setting(httpUrl().optional(), {
    description: "The dashboard's public URL (sign-in callbacks).",
    default: "`http://localhost:$PORT`",
    sameOnEveryInstance: true,
  }),
  AUTH_CREDENTIALS: setting(flag().optional(), {
    description: "Password sign-in of seeded/invited users (`on`/`off`).",
    default: "`on` in embedded mode, `off` with `DATABASE_URL`",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_ISSUER: setting(httpUrl().optional(), {
    description: "OpenID provider for console sign-in (with `AUTH_OIDC_CLIENT_ID` and `AUTH_OIDC_CLIENT_SECRET`: all three or none).",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_CLIENT_ID: setting(text().optional(), { description: "OIDC client ID.", sameOnEveryInstance: true }),
  AUTH_OIDC_CLIENT_SECRET: setting(text().optional(), { description: "OIDC client secret.", secret: true, sameOnEveryInstance: true }),
  AUTH_OIDC_ORG_CLAIM: setting(text().default("org_id"), {
    description: "The ID-token claim holding the person's organization (= our `orgId`).",
    default: "`org_id`",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_ROLE_CLAIM: setting(text().default("org_role"), {
    description: "The claim holding the person's role in it.",
    default: "`org_role`",
    sameOnEveryInstance: true,
  }),
  AUTH_OIDC_NAME: setting(text().default("single sign-on"), {
    description: "The sign-in button's label.",
    default: "`single sign-on`",
  }),
  OPERATOR_EMAILS: setting(
    text()
      .transform((value) =>
        value
          .split(",")
          .map((email) => email.trim().toLowerCase())
          .filter(Boolean),
      )
      .refine((emails) => emails.every((email) => /^[^\s@]+@[^\s@]+$/.test(email)), { error: "must be comma-separated email addresses" })
      .default([]),
    {
      description: "Comma-separated emails of the people who run the server: they see every organization's background jobs.",
      sameOnEveryInstance: true,
    },
  ),
};
