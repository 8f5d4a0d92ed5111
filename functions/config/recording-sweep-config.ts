import { parseEnvironment, variable, type Environment } from './env';

/**
 * How often the sweep runs (an EventBridge rule in AWS, a timer in `npm start`): a show whose
 * ingest died is final at most this long after its lease ran out.
 */
export const RECORDING_SWEEP_SECONDS = 60;

/** The recording sweep's configuration, read once per process. */
export interface RecordingSweepConfig {
  tableName: string;
  /** Where the ingest keeps each show's recording index and HLS (`recordings/`, `streams/`). */
  mediaBucket: string;
}

/** Reads the sweep's environment (infra/lib/constructs/recording-sweep.ts); throws one error naming each variable missing. */
export function readRecordingSweepConfig(env: Environment = process.env): RecordingSweepConfig {
  const found = parseEnvironment({ TABLE_NAME: variable.required(), MEDIA_BUCKET: variable.required() }, env);
  return { tableName: found.TABLE_NAME, mediaBucket: found.MEDIA_BUCKET };
}
