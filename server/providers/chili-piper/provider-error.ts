import { AppError, type AppErrorCode } from "@/server/errors";

/**
 * A failed call to the provider, as an AppError: PROVIDER_UNAVAILABLE (503) when it could not be reached, timed out
 * or said it is unavailable; PROVIDER_ERROR (502) when it answered with an error or something unreadable.
 * `providerStatus`/`providerErrorCode` let services turn a provider 404/409 into their own codes; they are not
 * serialized into API responses.
 */
export class ProviderRequestError extends AppError {
  static override readonly brand: symbol = Symbol.for("outbound-calling.ProviderRequestError");

  readonly providerStatus: number | null;
  readonly providerErrorCode: string | null;
  readonly providerArguments: Record<string, string>;

  constructor(
    code: Extract<AppErrorCode, "PROVIDER_ERROR" | "PROVIDER_UNAVAILABLE">,
    message: string,
    provider: { status: number | null; errorCode?: string | null; args?: Record<string, string> },
  ) {
    super(code, message);
    this.name = "ProviderRequestError";
    this.providerStatus = provider.status;
    this.providerErrorCode = provider.errorCode ?? null;
    this.providerArguments = provider.args ?? {};
  }
}

export function isProviderStatus(error: unknown, ...statuses: number[]): error is ProviderRequestError {
  return error instanceof ProviderRequestError && error.providerStatus !== null && statuses.includes(error.providerStatus);
}
