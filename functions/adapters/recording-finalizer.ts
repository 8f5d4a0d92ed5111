import type { S3Client } from '@aws-sdk/client-s3';
import type { RecordingFinalizer } from '../domain/streams';
import { Recording } from '../../recording/recording';
import { s3Store } from '../../recording/store';
import { logger } from './telemetry';

/** The recording module the ingest writes with (recording/), on the media bucket: the same index, the same playlists. */
export function s3RecordingFinalizer(client: S3Client, bucket: string): RecordingFinalizer {
  const store = s3Store({ bucket, client });
  const log = {
    debug: (msg: string, fields?: Record<string, unknown>) => logger.debug(msg, fields ?? {}),
    info: (msg: string, fields?: Record<string, unknown>) => logger.info(msg, fields ?? {}),
    warn: (msg: string, fields?: Record<string, unknown>) => logger.warn(msg, fields ?? {}),
    error: (msg: string, fields?: Record<string, unknown>) => logger.error(msg, fields ?? {}),
  };
  return {
    async finalize(eventId) {
      const recording = await Recording.open(store, eventId, log);
      await recording.putFinalPlaylists();
    },
  };
}
