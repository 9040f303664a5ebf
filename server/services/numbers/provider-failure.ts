import { AppError } from "@/server/errors";
import { getLogger } from "@/server/observability/logger";
import { NumberProviderError } from "./number-provider";

/**
 * A carrier refusal as the API reports it: 502 PROVIDER_ERROR when the carrier refused for good (its code in the
 * message), 503 PROVIDER_UNAVAILABLE when it may pass (retry later). Never the carrier's credentials or URLs.
 */
export function providerFailure(error: unknown, what: string): AppError {
  if (error instanceof AppError) return error;
  const code = error instanceof NumberProviderError ? error.code : null;
  const permanent = error instanceof NumberProviderError && error.permanent;
  getLogger("numbers").warn({ err: error, code }, `carrier refused to ${what}`);
  return permanent
    ? new AppError("PROVIDER_ERROR", `The carrier refused to ${what}${code ? ` (error ${code})` : ""}.`, { carrierCode: code })
    : new AppError("PROVIDER_UNAVAILABLE", `The carrier did not answer; could not ${what}. Retry later.`);
}
