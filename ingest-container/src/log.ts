/**
 * One JSON object per line on stderr: ECS ships it to CloudWatch as is, and
 * stdout stays free for the `ready` line of `npm start`. Secrets (tokens, the
 * internal API key) are never passed to it.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface Logger {
  debug(msg: string, fields?: Record<string, unknown>): void;
  info(msg: string, fields?: Record<string, unknown>): void;
  warn(msg: string, fields?: Record<string, unknown>): void;
  error(msg: string, fields?: Record<string, unknown>): void;
}

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const threshold = LOG_LEVELS.indexOf(level);
  const at = (entryLevel: LogLevel) => (msg: string, fields: Record<string, unknown> = {}) => {
    if (LOG_LEVELS.indexOf(entryLevel) < threshold) return;
    write(`${JSON.stringify({ time: new Date().toISOString(), level: entryLevel, msg, ...fields })}\n`);
  };
  return { debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

/** Error text for logs without stack noise; keeps the cause chain readable. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${describeError(error.cause)}` : '';
  return `${error.message}${cause}`;
}
