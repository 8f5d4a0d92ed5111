import { randomBytes } from 'node:crypto';
import { startEmbeddedDynamo } from '../local/embedded-dynamodb';
import { startApiServer } from '../local/api-server';
import { readApiConfig } from '../functions/config/api-config';
import { hashAdminPassword } from '../functions/domain/staff';
import type { ApiWiring } from '../functions/compose/api-app';
import type { TableStream } from '../local/table-stream';
import { call, type HttpResult } from './http';

export interface ApiHarness {
  url: string;
  adminPassword: string;
  internalApiKey: string;
  /** `ADMIN_SESSION_SECRET`, for forging admin cookies of a given account and generation in tests. */
  adminSessionSecret: string;
  /** `ADMIN_TOTP_KEY`: TOTP secrets in the staff table are sealed with it. */
  totpEncryptionKey: string;
  /** Raw key of `PLAYBACK_SIGNING_KEYS` (kid `test-1`), for crafting tokens in tests. */
  signingKey: Uint8Array;
  /** What the API was built on: for a test that runs the domain on the same table and configuration. */
  wiring: ApiWiring;
  /** The table's change stream, for a test that runs a stream-fed function (edge-sync, the mailer) beside the API. */
  stream: TableStream;
  /** Logs in and returns the cookie header value. */
  login(from?: string): Promise<string>;
  admin(method: string, path: string, json?: unknown): Promise<HttpResult>;
  close(): Promise<void>;
}

/**
 * The API exactly as `npm start` serves it (the shipped Lambda handlers behind
 * the local adapter) on the embedded DynamoDB, in this test process. `env`
 * overrides the API's configuration variables (the names it reads in AWS);
 * `dynamoVia` puts something between the API and the table (a bench's proxy);
 * `sqsEndpoint` is where the jobs queue of `JOBS_QUEUE_URL` is (the embedded SQS).
 */
export async function startApi(
  env: Record<string, string> = {},
  options: { dynamoVia?: (endpoint: string) => Promise<string>; sqsEndpoint?: string; s3Endpoint?: string } = {},
): Promise<ApiHarness> {
  const dynamo = await startEmbeddedDynamo({ tableName: 'stagedoor', staffTableName: 'stagedoor-staff' });
  const dynamoEndpoint = options.dynamoVia ? await options.dynamoVia(dynamo.endpoint) : dynamo.endpoint;
  const adminPassword = randomBytes(9).toString('base64url');
  const internalApiKey = randomBytes(18).toString('base64url');
  const signingKey = randomBytes(32);
  const adminSessionSecret = randomBytes(32).toString('base64url');
  const totpEncryptionKey = randomBytes(32).toString('base64url');
  const config = readApiConfig({
    TABLE_NAME: 'stagedoor',
    STAFF_TABLE_NAME: 'stagedoor-staff',
    PLAYBACK_SIGNING_KEYS: JSON.stringify({ activeKid: 'test-1', keys: { 'test-1': signingKey.toString('base64url') } }),
    ADMIN_PASSWORD_HASH: await hashAdminPassword(adminPassword),
    ADMIN_SESSION_SECRET: adminSessionSecret,
    ADMIN_TOTP_KEY: totpEncryptionKey,
    INTERNAL_API_KEY: internalApiKey,
    WATERMARK_SECRET: randomBytes(32).toString('base64url'),
    MEDIA_PORT: '4000',
    LOG_LEVEL: 'SILENT',
    ...env,
  });
  const wiring: ApiWiring = {
    config,
    aws: {
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
      endpoints: { dynamodb: dynamoEndpoint, sqs: options.sqsEndpoint, s3: options.s3Endpoint },
      s3ForcePathStyle: true,
    },
  };
  const api = await startApiServer({ port: 0, host: '0.0.0.0', wiring });
  const url = `http://127.0.0.1:${api.port}`;
  let cookie: string | undefined;
  const login = async (from = '127.0.0.1') => {
    const res = await call('POST', `${url}/api/admin/login`, { json: { password: adminPassword }, from });
    if (res.status !== 200) throw new Error(`login failed: ${res.status} ${res.text}`);
    return String((res.headers['set-cookie'] as string[])[0]).split(';')[0]!;
  };
  return {
    url,
    adminPassword,
    internalApiKey,
    adminSessionSecret,
    totpEncryptionKey,
    signingKey: new Uint8Array(signingKey),
    wiring,
    stream: dynamo.stream,
    login,
    async admin(method, path, json) {
      cookie ??= await login('127.0.0.250');
      return call(method, `${url}${path}`, { json, headers: { cookie } });
    },
    async close() {
      await api.close();
      await dynamo.close();
    },
  };
}
