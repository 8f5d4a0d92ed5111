import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { StoreUnavailable } from '../domain/errors';

/** DynamoDB's answers that say "not now" (throttled, overloaded, failed inside), by the SDK's error name. */
const REFUSALS = new Set([
  'ThrottlingException',
  'ProvisionedThroughputExceededException',
  'RequestLimitExceeded',
  'InternalServerError',
  'InternalFailure',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'LimitExceededException',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
/** Node's codes of a connection that failed or went silent (the SDK rethrows them as they are). */
const NETWORK = new Set(['ECONNRESET', 'ETIMEDOUT', 'ECONNREFUSED', 'ECONNABORTED', 'EPIPE', 'EAI_AGAIN', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH']);

/** Whether an SDK error is the store being unreachable or refusing for load, rather than an answer to the request. */
export function isStoreUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const { code, $metadata } = error as Error & { code?: string; $metadata?: { httpStatusCode?: number } };
  if (REFUSALS.has(error.name) || (code !== undefined && NETWORK.has(code))) return true;
  // Any other 5xx the service answered (a "socket hang up" is Node's ECONNRESET).
  return ($metadata?.httpStatusCode ?? 0) >= 500;
}

/**
 * The client every DynamoDB adapter sends through: its `send` turns the store's transient failures
 * into `StoreUnavailable` (a 503 with `Retry-After`, never a 500), after the SDK's own retries.
 * Condition failures and every other answer pass as they are.
 */
export function guardedClient(client: DynamoDBDocumentClient): DynamoDBDocumentClient {
  const send = async (...args: Parameters<DynamoDBDocumentClient['send']>) => {
    try {
      return await (client.send as (...a: unknown[]) => Promise<unknown>)(...args);
    } catch (error) {
      if (isStoreUnavailable(error)) throw new StoreUnavailable(`DynamoDB unavailable: ${(error as Error).name} ${(error as Error).message}`, { cause: error });
      throw error;
    }
  };
  return new Proxy(client, { get: (target, name, receiver) => (name === 'send' ? send : Reflect.get(target, name, receiver)) });
}
