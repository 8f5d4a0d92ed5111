/**
 * The one error type the API renders. `message` is the public `error` text;
 * `extra` adds fields to the body (the 409 of validation carries `inUse`).
 * Anything else thrown becomes a 500 whose details are logged, never shown.
 */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly options: { extra?: Record<string, unknown>; headers?: Record<string, string>; cause?: unknown } = {},
  ) {
    super(message, { cause: options.cause });
    this.name = 'HttpError';
  }
}
