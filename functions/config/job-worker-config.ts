import { logLevel, type LogLevel } from './api-config';
import { parseEnvironment, variable, type Environment } from './env';

/** The background-job worker's configuration, read once per process. It holds no secret. */
export interface JobWorkerConfig {
  tableName: string;
  /** The queue its steps come from, and where each sends the next. */
  jobsQueueUrl: string;
  /** The bucket export jobs write to (under `exports/`); null: exports are not set up. */
  exportBucket: string | null;
  logLevel: LogLevel;
}

/** Reads the worker's environment (infra/lib/constructs/jobs.ts); throws one error naming each variable missing or malformed. */
export function readJobWorkerConfig(env: Environment = process.env): JobWorkerConfig {
  const found = parseEnvironment(
    { TABLE_NAME: variable.required(), JOBS_QUEUE_URL: variable.required(), EXPORT_BUCKET: variable.optional(), LOG_LEVEL: logLevel },
    { ...env, LOG_LEVEL: env.POWERTOOLS_LOG_LEVEL || env.LOG_LEVEL },
  );
  return { tableName: found.TABLE_NAME, jobsQueueUrl: found.JOBS_QUEUE_URL, exportBucket: found.EXPORT_BUCKET ?? null, logLevel: found.LOG_LEVEL };
}
