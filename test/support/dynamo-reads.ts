import { createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One read as the table answered it: the operation, the index it read (null: the table), and the items it passed over. */
export interface TableRead {
  operation: string;
  index: string | null;
  /** Items the read examined (a query's `ScannedCount`; a get's 0 or 1; a batch get's items). */
  scanned: number;
}

const READS = new Set(['GetItem', 'BatchGetItem', 'Query', 'Scan']);

function scannedBy(operation: string, answer: Record<string, any>): number {
  if (operation === 'GetItem') return answer.Item ? 1 : 0;
  if (operation === 'BatchGetItem') return Object.values((answer.Responses ?? {}) as Record<string, unknown[]>).reduce((sum, items) => sum + items.length, 0);
  return Number(answer.ScannedCount ?? answer.Count ?? 0);
}

/**
 * A proxy in front of a DynamoDB endpoint that records every read and what it passed over, for proving
 * that a lookup answers from an index and does not walk: `startApi(env, { dynamoVia: reads.via })`,
 * then `reads.during(() => the request)`.
 */
export function dynamoReads() {
  let recording: TableRead[] | null = null;
  const servers: ReturnType<typeof createServer>[] = [];
  return {
    async via(endpoint: string): Promise<string> {
      const target = new URL(endpoint);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
          const upstream = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
            const parts: Buffer[] = [];
            answer.on('data', (chunk: Buffer) => parts.push(chunk));
            answer.on('end', () => {
              const text = Buffer.concat(parts);
              if (recording && READS.has(operation) && (answer.statusCode ?? 500) < 300) {
                const asked = JSON.parse(body.toString('utf8'));
                recording.push({ operation, index: asked.IndexName ?? null, scanned: scannedBy(operation, JSON.parse(text.toString('utf8'))) });
              }
              res.writeHead(answer.statusCode ?? 502, answer.headers);
              res.end(text);
            });
          });
          upstream.on('error', () => res.destroy());
          upstream.end(body);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    /** The reads `work` made (nothing else may run meanwhile). */
    async during<T>(work: () => Promise<T>): Promise<{ result: T; reads: TableRead[] }> {
      recording = [];
      try {
        const result = await work();
        return { result, reads: recording };
      } finally {
        recording = null;
      }
    },
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
