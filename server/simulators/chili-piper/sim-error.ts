/** An Edge-style failure: the HTTP status and the `{errorCode, errorMessage, arguments}` body. */
export class SimError extends Error {
  constructor(
    readonly status: number,
    readonly errorCode: string,
    message: string,
    readonly args: Record<string, string> = {},
    /** 400s of the Edge API are `text/plain` ("Invalid value for: body"). */
    readonly plain = false,
  ) {
    super(message);
  }
}
