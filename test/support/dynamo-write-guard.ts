import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/** DynamoDB's operations that write (X-Amz-Target `DynamoDB_20120810.<operation>`). */
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction']);

export interface DynamoWriteGuard {
  /** Put between the API and the table: `startApi(env, { dynamoVia: guard.via })`. */
  via(endpoint: string): Promise<string>;
  /** From now on every write is refused (500, as a failing table) and recorded. */
  refuseWrites(): void;
  /** The writes tried since `refuseWrites`, by operation. */
  readonly refused: string[];
  close(): Promise<void>;
}

/**
 * A proxy in front of a DynamoDB endpoint that passes reads through and, once told, refuses every
 * write: a table that fails on any write, for proving that something only reads. PartiQL
 * statements count as writes, since the proxy cannot tell.
 */
export function dynamoWriteGuard(): DynamoWriteGuard {
  let refusing = false;
  const refused: string[] = [];
  const servers: ReturnType<typeof createServer>[] = [];
  return {
    refused,
    refuseWrites() {
      refusing = true;
    },
    async via(endpoint) {
      const target = new URL(endpoint);
      const server = createServer((req: IncomingMessage, res) => {
        const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
        if (refusing && WRITES.has(operation)) {
          refused.push(operation);
          req.resume();
          res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
          res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'writes refused' }));
          return;
        }
        const upstream = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        });
        upstream.on('error', () => res.destroy());
        req.pipe(upstream);
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
