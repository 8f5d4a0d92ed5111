import { request as httpRequest } from 'node:http';

export interface HttpResult {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  /** Parsed JSON body, or undefined when the body is not JSON. */
  body: any;
}

/**
 * A plain HTTP call. `from` binds the client socket to a loopback address
 * (127.0.0.0/8), so tests can be many distinct clients as the server sees them.
 */
export function call(
  method: string,
  url: string,
  options: { json?: unknown; body?: string; headers?: Record<string, string>; from?: string } = {},
): Promise<HttpResult> {
  const payload = options.json !== undefined ? JSON.stringify(options.json) : options.body;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      url,
      {
        method,
        localAddress: options.from,
        headers: {
          ...(payload !== undefined ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {}),
          ...options.headers,
        },
      },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk) => (text += chunk));
        res.on('end', () => {
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, body });
        });
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
