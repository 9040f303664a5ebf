import type { Metadata } from "next";
import Link from "next/link";
import { getSessionActor, signInMethods } from "@/server/auth/next-auth";
import { TRPCReactProvider } from "@/server/trpc/client/react";
import { getServerCaller } from "@/server/trpc/server-caller";
import { ZInvitationTokenSchema, type TInvitationStatus } from "@/server/routers/invitations/invitations.schema";
import { SignOutButton } from "../../_components/sign-out-button";
import { Alert } from "../../_components/ui/alert";
import { AuthCard } from "../../_components/ui/auth-card";
import { Button } from "../../_components/ui/button";
import { AcceptAsSignedIn, CreateAccountAndAccept } from "./accept-invitation";

export const dynamic = "force-dynamic";
// The token is in the path: never send it on as a Referer.
export const metadata: Metadata = { title: "Invitation", referrer: "no-referrer" };

type Props = { params: Promise<{ token: string }> };

const UNUSABLE: Record<Exclude<TInvitationStatus, "pending">, { title: string; text: string }> = {
  expired: { title: "This invitation has expired", text: "Invitation links work for 7 days. Ask an admin of the organization to resend it." },
  accepted: { title: "This invitation was already used", text: "Each invitation link works once. Sign in to reach the organization." },
  revoked: { title: "This invitation was revoked", text: "An admin of the organization cancelled it. Ask them for a new one if you need access." },
};

function Card({ title, children }: { title: string; children: React.ReactNode }) {
  return (
    <AuthCard>
      <h1>{title}</h1>
      {children}
    </AuthCard>
  );
}

/**
 * `/invite/<token>`: opening the link changes nothing (mail scanners prefetch links). The invitee then either signs in
 * as the invited address and accepts, or — when no account exists for it and password sign-in is on — chooses a
 * password, which creates the account and accepts in one step. A link shown to the inviting admin (no mail server) does
 * not say whether the account exists: both ways are offered.
 */
export default async function InvitationPage({ params }: Props) {
  const token = (await params).token;
  const invitation = ZInvitationTokenSchema.safeParse(token).success ? await getServerCaller().invitations.lookup({ token }) : null;
  if (!invitation) {
    return (
      <Card title="Invitation not found">
        <p>This invitation link is not valid. Check that you copied all of it, or ask for a new one.</p>
        <Link href="/sign-in">Sign in</Link>
      </Card>
    );
  }
  if (invitation.status !== "pending") {
    const { title, text } = UNUSABLE[invitation.status];
    return (
      <Card title={title}>
        <p>
          {text} (Organization: <strong>{invitation.organizationName}</strong>.)
        </p>
        <Link href="/sign-in">Sign in</Link>
      </Card>
    );
  }
  const actor = await getSessionActor();
  const methods = signInMethods();
  const intro = (
    <p>
      You are invited to join <strong>{invitation.organizationName}</strong> as <strong>{invitation.role}</strong>. The invitation is for{" "}
      <strong>{invitation.email}</strong>.
    </p>
  );
  const callbackUrl = `/invite/${encodeURIComponent(token)}`;
  const signInUrl = `/sign-in?callbackUrl=${encodeURIComponent(callbackUrl)}`;

  if (actor && actor.email.toLowerCase() !== invitation.email) {
    return (
      <Card title="Join an organization">
        {intro}
        <Alert tone="warning" role="alert">
          You are signed in as {actor.email}. Sign out, then open this link again and sign in as {invitation.email}.
        </Alert>
        <SignOutButton callbackUrl={callbackUrl} />
      </Card>
    );
  }
  return (
    <Card title="Join an organization">
      {intro}
      <TRPCReactProvider orgId={null}>
        {actor ? (
          <AcceptAsSignedIn token={token} />
        ) : invitation.account?.exists || !methods.credentials ? (
          <>
            <p>{invitation.account?.exists ? "You already have an account: sign in to accept." : "Sign in with single sign-on to accept."}</p>
            <Button asChild variant="primary">
              <Link href={signInUrl}>Sign in to accept</Link>
            </Button>
          </>
        ) : (
          <>
            {/* A link shown to the inviting admin does not tell whether the address has an account: offer both. */}
            {invitation.account === null && (
              <p className="text-sm text-muted-foreground">
                Already have an account for {invitation.email}? <Link href={signInUrl}>Sign in to accept</Link>.
              </p>
            )}
            <CreateAccountAndAccept token={token} email={invitation.email} oidcName={methods.oidc?.name ?? null} signInUrl={signInUrl} />
          </>
        )}
      </TRPCReactProvider>
    </Card>
  );
}
