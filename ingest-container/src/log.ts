import { LogFormatter, LogItem, Logger as PowertoolsLogger } from '@aws-lambda-powertools/logger';
import type { LogAttributes, UnformattedAttributes } from '@aws-lambda-powertools/logger/types';
import type { Logger } from '../../recording/log';

// The logging port and error text are the recording module's (shared with the functions); the ingest's modules take them from here.
export { describeError, type Logger } from '../../recording/log';

/**
 * One JSON object per line on stderr: ECS ships it to CloudWatch as is, and
 * stdout stays free for the `ready` line of `npm start`. Secrets (tokens, the
 * internal API key) are never passed to it.
 */
export const LOG_LEVELS = ['debug', 'info', 'warn', 'error'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export function isLogLevel(value: string): value is LogLevel {
  return (LOG_LEVELS as readonly string[]).includes(value);
}

/**
 * Powertools' Logger (it runs outside Lambda too) with this server's line shape,
 * `{"time","level","msg",…fields}`, written whole to `write`: Powertools itself
 * would print info and debug to stdout.
 */
class LineLogger extends PowertoolsLogger {
  constructor(level: LogLevel, private readonly write: (line: string) => void) {
    super({ logLevel: level.toUpperCase() as Uppercase<LogLevel>, logFormatter: new LineFormatter() });
  }

  protected override printLog(_level: number, log: LogItem): void {
    this.write(`${JSON.stringify(log.getAttributes(), this.getJsonReplacer())}\n`);
  }
}

class LineFormatter extends LogFormatter {
  override formatAttributes(attributes: UnformattedAttributes, fields: LogAttributes): LogItem {
    const base = { time: attributes.timestamp.toISOString(), level: attributes.logLevel.toLowerCase(), msg: attributes.message };
    return new LogItem({ attributes: { ...base, ...fields } });
  }
}

export function createLogger(level: LogLevel, write: (line: string) => void = (line) => process.stderr.write(line)): Logger {
  const logger = new LineLogger(level, write);
  return {
    debug: (msg, fields) => logger.debug(msg, fields ?? {}),
    info: (msg, fields) => logger.info(msg, fields ?? {}),
    warn: (msg, fields) => logger.warn(msg, fields ?? {}),
    error: (msg, fields) => logger.error(msg, fields ?? {}),
  };
}
