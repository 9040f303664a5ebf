import { getServerSession, type NextAuthOptions } from "next-auth";
import type { OAuthConfig } from "next-auth/providers/oauth";
import CredentialsProvider from "next-auth/providers/credentials";
import { cache } from "react";
import { getDb } from "@/db";
import { getConfig } from "@/server/config/env";
import { isEmbeddedMode } from "@/server/config/settings";
import { clientIp } from "@/server/http/client-ip";
import { findMembership } from "@/server/services/members/list-my-organizations";
import { findOrganizationByOrgId, findUserByEmail, provisionOidcUser } from "@/server/services/members/provision-oidc-user";
import type { SessionActor } from "./session-actor";
import { signInWithPassword } from "./password-sign-in";
import { tooManyAttemptsCode } from "./sign-in-errors";
import { endUserSessions, findCurrentSessionUser } from "./session-version";

/**
 * Dashboard sign-in (DESIGN §2 "Dashboard login"):
 * - credentials of users in our `users` table (bcrypt), on by default in embedded mode; `AUTH_CREDENTIALS=off|on` forces it.
 * - a generic OIDC provider when `AUTH_OIDC_ISSUER`, `AUTH_OIDC_CLIENT_ID`, `AUTH_OIDC_CLIENT_SECRET` are set. The person's
 *   organization is the IdP claim `AUTH_OIDC_ORG_CLAIM` (default `org_id`), which must equal an `organizations.orgId`.
 * Sessions are JWTs (12 h, renewed while in use) holding the user id, the user's session version and the organization
 * signed into. Every request checks the session version against the database (jwt callback), so sign-out, a password
 * change or removal from an organization ends every earlier session at once; role and membership are read from the
 * database on every request too (server/auth/authenticate.ts).
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
  const config = getConfig();
  const { AUTH_OIDC_ISSUER: issuer, AUTH_OIDC_CLIENT_ID: clientId, AUTH_OIDC_CLIENT_SECRET: clientSecret } = config;
  if (!issuer || !clientId || !clientSecret) return null;
  return {
    issuer: issuer.replace(/\/+$/, ""),
    clientId,
    clientSecret,
    orgClaim: config.AUTH_OIDC_ORG_CLAIM,
    roleClaim: config.AUTH_OIDC_ROLE_CLAIM,
    displayName: config.AUTH_OIDC_NAME,
  };
}

export function credentialsEnabled(): boolean {
  return getConfig().AUTH_CREDENTIALS ?? isEmbeddedMode();
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

function buildAuthOptions(): NextAuthOptions {
  const oidc = oidcSettings();
  const providers: NextAuthOptions["providers"] = [];
  if (credentialsEnabled()) {
    providers.push(
      CredentialsProvider({
        id: "credentials",
        name: "Email and password",
        credentials: { email: { label: "Email", type: "email" }, password: { label: "Password", type: "password" } },
        async authorize(credentials, req) {
          const email = credentials?.email?.trim().slice(0, 320) ?? "";
          const password = credentials?.password ?? "";
          if (!email || !password) return null;
          const result = await signInWithPassword(getDb(), { email, password, ip: clientIp(req?.headers) });
          // Thrown messages reach the sign-in page as `?error=` (and `signIn()`'s result.error).
          if (result.status === "locked") throw new Error(tooManyAttemptsCode(result.retryAfterMinutes));
          if (result.status !== "ok") return null;
          return { id: result.user.id, email: result.user.email, name: result.user.name, sessionVersion: result.user.sessionVersion };
        },
      }),
    );
  }
  if (oidc) providers.push(oidcProvider(oidc));

  return {
    secret: getConfig().NEXTAUTH_SECRET,
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
        if (!account) {
          // Every later request: a token whose session version is no longer the user's is worth nothing.
          const current = await findCurrentSessionUser(getDb(), token);
          return current ? { ...token, email: current.email } : {};
        }
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
          token.sv = provisioned.sessionVersion;
          token.email = provisioned.email;
          token.activeOrgId = provisioned.orgId;
        } else {
          token.uid = user.id;
          token.sv = (user as { sessionVersion?: number }).sessionVersion;
          token.activeOrgId = null;
        }
        return token;
      },
      async session({ session, token }) {
        return {
          ...session,
          user: { ...session.user, id: token.uid as string | undefined, email: token.email ?? session.user?.email },
          activeOrgId: (token.activeOrgId as string | null | undefined) ?? null,
        };
      },
    },
    events: {
      // Signing out ends every session of the person (all devices), not just this cookie.
      async signOut({ token }) {
        if (typeof token?.uid === "string" && typeof token.sv === "number") {
          await endUserSessions(getDb(), { userId: token.uid, ifVersion: token.sv });
        }
      },
    },
  };
}

let cached: { key: string; options: NextAuthOptions } | null = null;

/** Options are rebuilt when the relevant settings change (tests start providers on runtime ports). */
export function authOptions(): NextAuthOptions {
  const key = JSON.stringify([oidcSettings(), credentialsEnabled(), getConfig().NEXTAUTH_SECRET]);
  if (!cached || cached.key !== key) cached = { key, options: buildAuthOptions() };
  return cached.options;
}

/** What next-auth reads a session from: the request's cookies (and headers). */
export type SessionSource = { cookies: Record<string, string>; headers: Record<string, string> };

/** The signed-in dashboard user of a request, or null (no session, expired, or revoked by its session version). */
export async function readSessionActor(source: SessionSource): Promise<SessionActor | null> {
  const ignoreCookies = { getHeader() {}, setCookie() {}, setHeader() {} };
  const session = (await getServerSession(source as never, ignoreCookies as never, authOptions())) as
    | { user?: { id?: string; email?: string | null }; activeOrgId?: string | null }
    | null;
  const userId = session?.user?.id;
  if (!userId) return null;
  return { userId, email: session.user?.email ?? "", activeOrgId: session.activeOrgId ?? null };
}

/** A fetch Request's cookies and headers, for readSessionActor (the /api/trpc route). */
export function sessionSourceOf(request: Request): SessionSource {
  const cookies: Record<string, string> = {};
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const index = part.indexOf("=");
    if (index <= 0) continue;
    const name = part.slice(0, index).trim();
    const value = part.slice(index + 1).trim();
    try {
      cookies[name] = decodeURIComponent(value);
    } catch {
      cookies[name] = value;
    }
  }
  return { cookies, headers: Object.fromEntries(request.headers) };
}

/** The signed-in dashboard user of the current request (server components and route handlers), or null. */
export async function getSessionActor(): Promise<SessionActor | null> {
  const { cookies, headers } = await import("next/headers");
  return readSessionActor({
    cookies: Object.fromEntries((await cookies()).getAll().map((cookie) => [cookie.name, cookie.value])),
    headers: Object.fromEntries(await headers()),
  });
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
