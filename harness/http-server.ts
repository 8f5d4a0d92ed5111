import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface TestHttpServer {
  url: string;
  requests: { path: string; headers: IncomingMessage['headers']; body: any }[];
  close(): Promise<void>;
}

/**
 * A real HTTP server on loopback standing in for a callback or webhook target
 * (tests and benchmarks): it records each request, its body parsed when it is
 * JSON (nginx-rtmp posts a form: kept as text), and lets `handle` decide the answer.
 */
export async function httpServer(
  handle: (body: any, req: IncomingMessage, res: ServerResponse) => void = (_b, _q, res) => res.end(),
): Promise<TestHttpServer> {
  const requests: TestHttpServer['requests'] = [];
  const server = createServer((req, res) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const body = text ? parseJsonOrText(text) : undefined;
      requests.push({ path: req.url ?? '', headers: req.headers, body });
      handle(body, req, res);
    });
  });
  // Longer than any client's idle timeout, so a kept-alive socket is never closed under a request being sent.
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function parseJsonOrText(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
