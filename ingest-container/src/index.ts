/** What other parts of the project (local/start.ts, tests, benches) use. */
export { startIngestServer, type IngestOptions, type IngestServer, type ListenAddress } from './server';
export { folderStore, s3Store, type HlsStore, type StoredObject } from '../../recording/store';
export { ErrUnauthorized, AuthServiceUnavailable, INVALID_CREDENTIALS, TOKEN_MISSING } from './auth/errors';
export type { AuthConfig } from './auth/authenticator';
export type { AuthFailedPayload } from './hooks/webhooks';
export { createLogger, isLogLevel, type LogLevel } from './log';
