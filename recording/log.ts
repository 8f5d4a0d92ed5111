/** What the recording code logs through: the ingest's line logger, or the functions' Powertools logger. */
export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

/** Error text for logs without stack noise; keeps the cause chain readable. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${describeError(error.cause)}` : '';
  return `${error.message}${cause}`;
}
