import { SESSION_TIMEOUT_SECONDS } from '../domain/config';
import { parseEnvironment, variable, type Environment } from './env';

/**
 * What runs the audience recorder, in AWS (infra/lib/constructs/audience.ts: the table stream's
 * event source mapping) and in `npm start` (local/start.ts) alike. A full batch of a thousand
 * heartbeats becomes one write per minute it touches; the window bounds how stale the last
 * minute is (the console waits for minutes to settle anyway, audience-report.ts).
 */
export const AUDIENCE_TRIGGERS = {
  stream: {
    /** Sessions live on code items; the air marks come from events' publish leases. */
    keyPrefixes: ['CODE#', 'EVENT#'],
    batchSize: 1000,
    batchingWindowSeconds: 5,
    /** Then the batch is dropped: its minutes are missing from the charts, nothing else. */
    retryAttempts: 3,
  },
} as const;

/** The audience recorder's configuration, read once per process. */
export interface AudienceConfig {
  tableName: string;
  /** The API's session timeout: a session is alive across a gap between its writes no longer than this. */
  sessionTimeoutSeconds: number;
}

/** Reads the recorder's environment; throws one error naming each variable missing or malformed. */
export function readAudienceConfig(env: Environment = process.env): AudienceConfig {
  const found = parseEnvironment(
    { TABLE_NAME: variable.required(), SESSION_TIMEOUT_SECONDS: variable.positiveInteger(SESSION_TIMEOUT_SECONDS) },
    env,
  );
  return { tableName: found.TABLE_NAME, sessionTimeoutSeconds: found.SESSION_TIMEOUT_SECONDS };
}
