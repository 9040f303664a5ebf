import bcrypt from "bcryptjs";
import { getServerSession, type NextAuthOptions } from "next-auth";
import type { OAuthConfig } from "next-auth/providers/oauth";
import CredentialsProvider from "next-auth/providers/credentials";
import { cache } from "react";
import { getDb } from "@/db";
import { isEmbeddedMode } from "@/server/config/settings";
import { findMembership } from "@/server/services/members/list-my-organizations";
import { findOrganizationByOrgId, findUserByEmail, provisionOidcUser } from "@/server/services/members/provision-oidc-user";
import type { SessionActor } from "@/server/trpc/context";

/**
 * Dashboard sign-in (DESIGN §2 "Dashboard login"):
 * - credentials of users in our `users` table (bcrypt), on by default in embedded mode; `AUTH_CREDENTIALS=off|on` forces it.
 * - a generic OIDC provider when `AUTH_OIDC_ISSUER`, `AUTH_OIDC_CLIENT_ID`, `AUTH_OIDC_CLIENT_SECRET` are set. The person's
 *   organization is the IdP claim `AUTH_OIDC_ORG_CLAIM` (default `org_id`), which must equal an `organizations.orgId`.
 * Sessions are JWTs holding only the user id and the organization signed into; role and membership are read from the
 * database on every request (server/auth/authenticate.ts), so a removed member loses access at once.
 */

export type OidcSettings = {
  issuer: string;
  clientId: string;
  clientSecret: string;
  orgClaim: string;
  roleClaim: string;
  displayName: string;
};

export function oidcSettings(): OidcSettings | null {
  const issuer = process.env.AUTH_OIDC_ISSUER;
  const clientId = process.env.AUTH_OIDC_CLIENT_ID;
  const clientSecret = process.env.AUTH_OIDC_CLIENT_SECRET;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    issuer: issuer.replace(/\/+$/, ""),
    clientId,
    clientSecret,
    orgClaim: process.env.AUTH_OIDC_ORG_CLAIM ?? "org_id",
    roleClaim: process.env.AUTH_OIDC_ROLE_CLAIM ?? "org_role",
    displayName: process.env.AUTH_OIDC_NAME ?? "single sign-on",
  };
}

export function credentialsEnabled(): boolean {
  const flag = process.env.AUTH_CREDENTIALS?.toLowerCase();
  if (flag === "off" || flag === "false" || flag === "0") return false;
  if (flag === "on" || flag === "true" || flag === "1") return true;
  return isEmbeddedMode();
}

/** What the sign-in page may show (no secrets). */
export function signInMethods() {
  const oidc = oidcSettings();
  return { credentials: credentialsEnabled(), oidc: oidc ? { id: "oidc", name: oidc.displayName } : null };
}

type OidcProfile = Record<string, unknown> & { sub: string; email?: string; name?: string };

function oidcProvider(settings: OidcSettings): OAuthConfig<OidcProfile> {
  return {
    id: "oidc",
    name: settings.displayName,
    type: "oauth",
    wellKnown: `${settings.issuer}/.well-known/openid-configuration`,
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    authorization: { params: { scope: "openid email profile" } },
    idToken: true,
    checks: ["pkce", "state"],
    profile(profile) {
      return { id: profile.sub, email: profile.email ?? null, name: profile.name ?? profile.email ?? null };
    },
  };
}

export const SIGN_IN_ERRORS = {
  NoOrganization: "Your identity provider did not name an organization that exists here.",
  NoEmail: "Your identity provider did not share an email address.",
  EmailNotVerified: "Your identity provider has not verified your email address.",
  CredentialsSignin: "Wrong email or password.",
} as const;

function buildAuthOptions(): NextAuthOptions {
  const oidc = oidcSettings();
  const providers: NextAuthOptions["providers"] = [];
  if (credentialsEnabled()) {
    providers.push(
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials) {
          const email = credentials?.email?.trim();
          const password = credentials?.password ?? "";
          if (!email || !password) return null;
          const user = await findUserByEmail(getDb(), email);
          // Users created by OIDC have no password and cannot sign in this way.
          if (!user?.passwordHash) return null;
          if (!(await bcrypt.compare(password, user.passwordHash))) return null;
          return { id: user.id, email: user.email, name: user.name };
        },
      }),
    );
  }
  if (oidc) providers.push(oidcProvider(oidc));

  return {
    secret: process.env.NEXTAUTH_SECRET,
    session: { strategy: "jwt", maxAge: 12 * 60 * 60 },
    pages: { signIn: "/sign-in", error: "/sign-in" },
    providers,
    callbacks: {
      async signIn({ account, profile }) {
        if (account?.provider !== "oidc" || !oidc) return true;
        const claims = (profile ?? {}) as Record<string, unknown>;
        if (typeof claims.email !== "string" || !claims.email) return "/sign-in?error=NoEmail";
        // People are matched by email: an address the IdP says is unverified never signs in, and an existing
        // password account is only joined when the IdP vouches for the address explicitly.
        if (claims.email_verified === false) return "/sign-in?error=EmailNotVerified";
        if (claims.email_verified !== true && (await findUserByEmail(getDb(), claims.email))?.passwordHash) {
          return "/sign-in?error=EmailNotVerified";
        }
        const orgId = claims[oidc.orgClaim];
        // Trust boundary: the organization comes only from the IdP's signed ID token claim.
        if (typeof orgId !== "string" || !(await findOrganizationByOrgId(getDb(), orgId))) return "/sign-in?error=NoOrganization";
        return true;
      },
      async jwt({ token, user, account, profile }) {
        if (!account) return token;
        if (account.provider === "oidc" && oidc) {
          const claims = (profile ?? {}) as Record<string, unknown>;
          const provisioned = await provisionOidcUser(getDb(), {
            email: String(claims.email),
            name: typeof claims.name === "string" ? claims.name : null,
            orgId: String(claims[oidc.orgClaim]),
            roleClaim: claims[oidc.roleClaim],
          });
          if (!provisioned) throw new Error("OIDC organization vanished during sign-in");
          token.uid = provisioned.userId;
          token.email = provisioned.email;
          token.activeOrgId = provisioned.orgId;
        } else {
          token.uid = user.id;
          token.activeOrgId = null;
        }
        return token;
      },
      async session({ session, token }) {
        return {
          ...session,
          user: { ...session.user, id: token.uid as string, email: token.email ?? session.user?.email },
          activeOrgId: (token.activeOrgId as string | null | undefined) ?? null,
        };
      },
    },
  };
}

let cached: { key: string; options: NextAuthOptions } | null = null;

/** Options are rebuilt when the relevant settings change (tests start providers on runtime ports). */
export function authOptions(): NextAuthOptions {
  const key = JSON.stringify([oidcSettings(), credentialsEnabled(), process.env.NEXTAUTH_SECRET]);
  if (!cached || cached.key !== key) cached = { key, options: buildAuthOptions() };
  return cached.options;
}

/** The signed-in dashboard user of the current request (route handlers and server components), or null. */
export async function getSessionActor(): Promise<SessionActor | null> {
  const session = (await getServerSession(authOptions())) as
    | { user?: { id?: string; email?: string | null }; activeOrgId?: string | null }
    | null;
  const userId = session?.user?.id;
  if (!userId) return null;
  return { userId, email: session.user?.email ?? "", activeOrgId: session.activeOrgId ?? null };
}

/**
 * The signed-in person and their verified membership of `orgId`, once per request (React cache): used by the console's
 * server components to redirect to sign-in, refuse non-members and hide admin-only pages. Procedures check again.
 */
export const getConsoleMembership = cache(async (orgId: string) => {
  const actor = await getSessionActor();
  if (!actor) return { actor: null, membership: null } as const;
  const membership = await findMembership(getDb(), { userId: actor.userId, orgId });
  return { actor, membership } as const;
});
