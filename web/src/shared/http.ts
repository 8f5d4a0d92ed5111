/**
 * The one way the pages talk to the API: JSON in, JSON out, and every failure
 * turned into an `ApiError` carrying the HTTP status (0 when the request never
 * got an answer), the API's `{ "error": ... }` text and, on a refusal, its
 * machine-readable `reason`.
 */
export class ApiError extends Error {
  override name = 'ApiError';
  constructor(
    /** HTTP status, or 0 for a network failure. */
    readonly status: number,
    /** The API's `error` text, or a short description. */
    message: string,
    /** The parsed body, when there was one. */
    readonly body?: unknown,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }

  /** The refusal's `reason` (docs/api.md): what to branch on, never the `error` text. */
  get reason(): string | undefined {
    const { body } = this;
    return typeof body === 'object' && body !== null && 'reason' in body && typeof body.reason === 'string' ? body.reason : undefined;
  }
}

export interface RequestOptions {
  method?: string;
  /** Serialised as JSON. */
  json?: unknown;
  headers?: Record<string, string>;
  keepalive?: boolean;
  signal?: AbortSignal;
}

export async function requestJson<T>(url: string, options: RequestOptions = {}): Promise<T> {
  const headers: Record<string, string> = { Accept: 'application/json', ...options.headers };
  if (options.json !== undefined) headers['Content-Type'] = 'application/json';
  let response: Response;
  try {
    response = await fetch(url, {
      method: options.method ?? (options.json === undefined ? 'GET' : 'POST'),
      headers,
      body: options.json === undefined ? undefined : JSON.stringify(options.json),
      credentials: 'same-origin',
      keepalive: options.keepalive,
      signal: options.signal,
    });
  } catch (cause) {
    throw new ApiError(0, 'Network error', undefined, { cause });
  }
  const body = parseBody(await response.text().catch(() => ''));
  if (!response.ok) throw new ApiError(response.status, errorText(body, response.status), body);
  return body as T;
}

function parseBody(text: string): unknown {
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function errorText(body: unknown, status: number): string {
  if (typeof body === 'object' && body !== null && 'error' in body && typeof body.error === 'string') return body.error;
  return `HTTP ${status}`;
}

/** The API error of an unknown thrown value, or a status-0 error for anything else. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, error instanceof Error ? error.message : String(error));
}
