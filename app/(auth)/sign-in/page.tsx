import type { Metadata } from "next";
import { redirect } from "next/navigation";
import { getSessionActor, signInMethods } from "@/server/auth/next-auth";
import { safeCallbackPath } from "@/server/auth/safe-callback";
import { signInErrorText } from "@/server/auth/sign-in-errors";
import { Alert } from "../../_components/ui/alert";
import { AuthCard } from "../../_components/ui/auth-card";
import { SignInForm } from "./sign-in-form";

export const dynamic = "force-dynamic";
export const metadata: Metadata = { title: "Sign in" };

type Props = { searchParams: Promise<{ error?: string | string[]; callbackUrl?: string | string[] }> };

export default async function SignInPage({ searchParams }: Props) {
  const { error, callbackUrl: asked } = await searchParams;
  // Same-origin paths only, after full URL parsing (server/auth/safe-callback.ts): signed in, the redirect; signed out,
  // where the form navigates after signing in.
  const callbackUrl = safeCallbackPath(asked);
  if (await getSessionActor()) redirect(callbackUrl);
  const methods = signInMethods();
  const errorText = signInErrorText(typeof error === "string" ? error : null);
  return (
    <AuthCard>
      <div>
        <h1>Sign in</h1>
        <p className="text-muted-foreground">Outbound AI Calling console</p>
      </div>
      {errorText && <Alert tone="error">{errorText}</Alert>}
      <SignInForm credentials={methods.credentials} oidc={methods.oidc} callbackUrl={callbackUrl} />
      {!methods.credentials && !methods.oidc && (
        <Alert tone="warning" role="alert">
          No sign-in method is configured. Set AUTH_OIDC_ISSUER, AUTH_OIDC_CLIENT_ID and AUTH_OIDC_CLIENT_SECRET, or AUTH_CREDENTIALS=on.
        </Alert>
      )}
      <p className="text-sm text-muted-foreground">
        Integrating? See the <a href="/docs">API reference</a>.
      </p>
    </AuthCard>
  );
}
