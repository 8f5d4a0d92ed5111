import type { ApiResult } from './api-types';

export function json(status: number, body: unknown, headers: Record<string, string> = {}, cookies?: string[]): ApiResult {
  return {
    statusCode: status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
    body: JSON.stringify(body),
    ...(cookies ? { cookies } : {}),
  };
}
