import { Logger } from '@aws-lambda-powertools/logger';

/** Structured JSON logs; level from `POWERTOOLS_LOG_LEVEL` or `LOG_LEVEL`. */
export const logger = new Logger({
  serviceName: 'stagedoor',
  logLevel: (process.env.POWERTOOLS_LOG_LEVEL ?? process.env.LOG_LEVEL ?? 'INFO').toUpperCase() as 'INFO',
});
