import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { readApiConfig } from '../../functions/config/api-config';
import { readAudienceConfig } from '../../functions/config/audience-config';
import { readEdgeSyncConfig } from '../../functions/config/edge-sync-config';
import { readJobWorkerConfig } from '../../functions/config/job-worker-config';
import { readRecordingSweepConfig } from '../../functions/config/recording-sweep-config';

const local = {
  TABLE_NAME: 'stagedoor',
  PLAYBACK_SIGNING_KEYS: '{"activeKid":"k1","keys":{"k1":"x"}}',
  INTERNAL_API_KEY: 'i'.repeat(24),
  WATERMARK_SECRET: 'w'.repeat(43),
};

describe('the API functions\' configuration', () => {
  it('names every variable that is missing', () => {
    expect(() => readApiConfig({})).toThrow('configuration: TABLE_NAME is required');
    expect(() => readApiConfig({ TABLE_NAME: 't' })).toThrow('configuration: PLAYBACK_SIGNING_KEYS is required; INTERNAL_API_KEY is required; WATERMARK_SECRET is required');
    expect(() => readApiConfig({ ...local, ADMIN_PASSWORD_HASH: 'scrypt$x' })).toThrow('configuration: ADMIN_SESSION_SECRET is required; ADMIN_TOTP_KEY is required');
  });

  it('names a malformed variable with the value it got', () => {
    expect(() => readApiConfig({ ...local, MEDIA_PORT: 'eighty' })).toThrow('configuration: MEDIA_PORT must be a positive whole number, got "eighty"');
    expect(() => readApiConfig({ ...local, INGEST_HLS_SEGMENT: 'fast', SESSION_TIMEOUT_SECONDS: '-1' })).toThrow(
      'configuration: INGEST_HLS_SEGMENT must be a duration such as 1s, got "fast"; SESSION_TIMEOUT_SECONDS must be a positive whole number, got "-1"',
    );
    expect(() => readApiConfig({ ...local, PLAYBACK_BASE_URL: 'media.example.com' })).toThrow('PLAYBACK_BASE_URL must be a URL, got "media.example.com"');
    expect(() => readApiConfig({ ...local, LOG_LEVEL: 'loud' })).toThrow('LOG_LEVEL must be one of trace, debug, info, warn, error, critical, silent, got "loud"');
  });

  it('reads AWS\'s settings: secrets by ARN, the admin secret only where given, the CloudFront cache', () => {
    const config = readApiConfig({
      TABLE_NAME: 'Table-1',
      SECRETS_ARN: 'arn:shared',
      PLAYBACK_BASE_URL: 'https://d1.cloudfront.net',
      INGEST_HLS_SEGMENT: '2s',
      CLOUDFRONT_DISTRIBUTION_ID: 'E123',
      LOG_LEVEL: 'info',
    });
    expect(config).toMatchObject({
      tableName: 'Table-1',
      secrets: { arn: 'arn:shared' },
      adminSecrets: null,
      playbackBaseUrl: 'https://d1.cloudfront.net',
      segmentSeconds: 2,
      mediaCache: { cloudFrontDistributionId: 'E123' },
      mediaPort: 4000,
      sessionTimeoutSeconds: 90,
      logLevel: 'INFO',
    });
    expect(readApiConfig({ ...local, ADMIN_SECRETS_ARN: 'arn:admin', POWERTOOLS_LOG_LEVEL: 'SILENT', LOG_LEVEL: 'info' })).toMatchObject({
      adminSecrets: { arn: 'arn:admin' },
      logLevel: 'SILENT',
    });
  });

  it('takes the secrets\' values as variables locally', () => {
    const config = readApiConfig({ ...local, ADMIN_PASSWORD_HASH: 'scrypt$x', ADMIN_SESSION_SECRET: 's', ADMIN_TOTP_KEY: 't', MEDIA_ADMIN_URL: 'http://127.0.0.1:4000' });
    expect(config.secrets).toEqual({ values: { playbackSigningKeys: local.PLAYBACK_SIGNING_KEYS, internalApiKey: local.INTERNAL_API_KEY, originVerifySecret: null, watermarkSecret: local.WATERMARK_SECRET } });
    expect(config.mediaBucket).toBeNull();
    expect(readApiConfig({ ...local, MEDIA_BUCKET: 'media' }).mediaBucket).toBe('media');
    expect(config.adminSecrets).toEqual({ values: { adminPasswordHash: 'scrypt$x', adminSessionSecret: 's', totpEncryptionKey: 't' } });
    expect(config.mediaCache).toEqual({ mediaAdminUrl: 'http://127.0.0.1:4000' });
  });
});

describe('edge-sync\'s configuration', () => {
  it('names every variable that is missing', () => {
    expect(() => readEdgeSyncConfig({ TABLE_NAME: 't' })).toThrow('configuration: KVS_ARN is required; SECRETS_ARN is required');
    expect(readEdgeSyncConfig({ TABLE_NAME: 't', KVS_ARN: 'arn:kvs', SECRETS_ARN: 'arn:s' })).toEqual({ tableName: 't', kvsArn: 'arn:kvs', secrets: { arn: 'arn:s' } });
  });
});

describe('the job worker\'s configuration', () => {
  it('names every variable that is missing or malformed, and holds no secret but where the commerce secret is', () => {
    expect(() => readJobWorkerConfig({})).toThrow('configuration: TABLE_NAME is required; JOBS_QUEUE_URL is required');
    expect(() => readJobWorkerConfig({ TABLE_NAME: 't', JOBS_QUEUE_URL: 'https://sqs/q', LOG_LEVEL: 'loud' })).toThrow('LOG_LEVEL must be one of');
    expect(readJobWorkerConfig({ TABLE_NAME: 't', JOBS_QUEUE_URL: 'https://sqs/q', LOG_LEVEL: 'info', SECRETS_ARN: 'arn:s' })).toEqual({
      tableName: 't',
      jobsQueueUrl: 'https://sqs/q',
      exportBucket: null,
      logLevel: 'INFO',
      commerceSecrets: null,
      stripeApiUrl: null,
    });
    expect(readJobWorkerConfig({ TABLE_NAME: 't', JOBS_QUEUE_URL: 'https://sqs/q', COMMERCE_SECRETS_ARN: 'arn:commerce' })).toMatchObject({ commerceSecrets: { arn: 'arn:commerce' } });
    expect(readJobWorkerConfig({ TABLE_NAME: 't', JOBS_QUEUE_URL: 'https://sqs/q', EXPORT_BUCKET: 'exports' })).toMatchObject({ exportBucket: 'exports' });
  });

  it('gives the API the queue jobs start on, where there is one', () => {
    expect(readApiConfig(local).jobsQueueUrl).toBeNull();
    expect(readApiConfig({ ...local, JOBS_QUEUE_URL: 'https://sqs.eu-west-1.amazonaws.com/1/jobs' }).jobsQueueUrl).toBe('https://sqs.eu-west-1.amazonaws.com/1/jobs');
    expect(() => readApiConfig({ ...local, JOBS_QUEUE_URL: 'jobs' })).toThrow('JOBS_QUEUE_URL must be a URL, got "jobs"');
  });
});

describe('the recording sweep\'s configuration', () => {
  it('names every variable that is missing', () => {
    expect(() => readRecordingSweepConfig({})).toThrow('configuration: TABLE_NAME is required; MEDIA_BUCKET is required');
    expect(readRecordingSweepConfig({ TABLE_NAME: 't', MEDIA_BUCKET: 'media' })).toEqual({ tableName: 't', mediaBucket: 'media' });
  });
});

describe('the audience recorder\'s configuration', () => {
  it('names every variable that is missing or malformed, and takes the API\'s session timeout', () => {
    expect(() => readAudienceConfig({ SESSION_TIMEOUT_SECONDS: 'soon' })).toThrow(
      'configuration: TABLE_NAME is required; SESSION_TIMEOUT_SECONDS must be a positive whole number, got "soon"',
    );
    expect(readAudienceConfig({ TABLE_NAME: 't' })).toEqual({ tableName: 't', sessionTimeoutSeconds: 90 });
    expect(readAudienceConfig({ TABLE_NAME: 't', SESSION_TIMEOUT_SECONDS: '120' }).sessionTimeoutSeconds).toBe(120);
  });
});

describe('reading the environment', () => {
  it('happens in functions/ only in the config modules', () => {
    const root = fileURLToPath(new URL('../../functions', import.meta.url));
    const files = (dir: string): string[] =>
      readdirSync(dir).flatMap((name) => (statSync(join(dir, name)).isDirectory() ? files(join(dir, name)) : [join(dir, name)]));
    const readers = files(root)
      .filter((file) => readFileSync(file, 'utf8').includes('process.env'))
      .map((file) => relative(root, file));
    expect(readers.sort()).toEqual([
      'config/api-config.ts',
      'config/audience-config.ts',
      'config/edge-sync-config.ts',
      'config/env.ts',
      'config/job-worker-config.ts',
      'config/mailer-config.ts',
      'config/recording-sweep-config.ts',
    ]);
  });
});
