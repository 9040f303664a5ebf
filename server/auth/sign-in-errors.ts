/**
 * Sign-in error codes as next-auth passes them (`?error=` on /sign-in, `result.error` of `signIn()`), and their text.
 * No server imports: the sign-in form (a client component) uses it too.
 */
export const SIGN_IN_ERRORS = {
  NoOrganization: "Your identity provider did not name an organization that exists here.",
  NoEmail: "Your identity provider did not share an email address.",
  EmailNotVerified: "Your identity provider has not verified your email address.",
  CredentialsSignin: "Wrong email or password.",
  RateLimited: "Too many requests from this address. Wait a moment and try again.",
  RequestRefused: "The sign-in request was refused (too large). Try again.",
} as const;

const TOO_MANY_ATTEMPTS = "TooManyAttempts";

/** The code the credentials provider throws while an account or address is locked out: `TooManyAttempts:<minutes>`. */
export function tooManyAttemptsCode(minutes: number): string {
  return `${TOO_MANY_ATTEMPTS}:${minutes}`;
}

export function tooManyAttemptsMessage(minutes: number): string {
  return `Too many attempts, try again in ${minutes} ${minutes === 1 ? "minute" : "minutes"}.`;
}

export function signInErrorText(code: string | null | undefined): string | null {
  if (!code) return null;
  const throttled = new RegExp(`^${TOO_MANY_ATTEMPTS}:(\\d{1,5})$`).exec(code);
  if (throttled) return tooManyAttemptsMessage(Number(throttled[1]));
  return SIGN_IN_ERRORS[code as keyof typeof SIGN_IN_ERRORS] ?? "Sign-in failed. Try again.";
}
