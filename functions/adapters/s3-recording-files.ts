import { GetObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { PartRecord } from '../../recording/part-record';
import { s3Store } from '../../recording/store';
import type { RecordedPart, RecordingFiles } from '../domain/watermark';
import { logger } from './telemetry';

/**
 * The media bucket for the watermark tracer: the event's recording index (`recordings/<eventId>/*.json`,
 * the ingest's, recording/recording.ts) and presigned GETs of its files (locally the embedded S3's own address).
 */
export function s3RecordingFiles(client: S3Client, bucket: string): RecordingFiles {
  const store = s3Store({ bucket, client });
  return {
    async parts(eventId) {
      const parts: RecordedPart[] = [];
      for (const key of await store.list(`recordings/${eventId}/`)) {
        if (!key.endsWith('.json')) continue;
        try {
          const record = JSON.parse((await store.get(key))?.toString() ?? 'null') as PartRecord | null;
          if (record?.version === 1) parts.push(record);
        } catch (error) {
          logger.error('recording index unreadable, part left out', { key, error: String(error) });
        }
      }
      return parts;
    },
    signedUrl(key, seconds) {
      return getSignedUrl(client, new GetObjectCommand({ Bucket: bucket, Key: key }), { expiresIn: seconds });
    },
  };
}
