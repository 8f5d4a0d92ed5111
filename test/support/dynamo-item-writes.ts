import { createServer, request, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * DynamoDB's operations that write (X-Amz-Target `DynamoDB_20120810.<operation>`). PartiQL statements
 * count as writes, since the proxy cannot tell.
 */
const WRITES = new Set(['PutItem', 'UpdateItem', 'DeleteItem', 'BatchWriteItem', 'TransactWriteItems', 'ExecuteStatement', 'BatchExecuteStatement', 'ExecuteTransaction']);

/** One write as it goes to the table: the operation, the item's partition key (empty for a batch), and the request. */
export interface ItemWrite {
  operation: string;
  pk: string;
  request: { UpdateExpression?: string } & Record<string, unknown>;
}

/** Picks writes; asked once for each write, in the order they arrive. */
export type WriteRule = (write: ItemWrite) => boolean;

export interface DynamoItemWrites {
  /** Put between a client and the table: the endpoint to give the client instead of `endpoint`. */
  via(endpoint: string): Promise<string>;
  /** From now on the writes `rule` picks are refused as a failing table refuses them (500 `InternalServerError`). */
  refuse(rule: WriteRule): void;
  /** From now on the writes `rule` picks get no answer until `release()` (a held answer). */
  hold(rule: WriteRule): void;
  /** Held writes go on to the table; from now on every write does. */
  release(): void;
  /** Writes refused since the proxy started. */
  readonly refused: number;
  /** The operations of the writes refused, in order (a test may empty it). */
  readonly refusedOperations: string[];
  /** Writes waiting for `release()`. */
  readonly held: number;
  close(): Promise<void>;
}

/**
 * A proxy in front of a DynamoDB endpoint that, once told, refuses or holds the writes of chosen items
 * (by partition key and request) and passes everything else: a table that keeps refusing the same
 * items while the rest of it works, or a write whose answer is late.
 */
export function dynamoItemWrites(): DynamoItemWrites {
  let refusing: WriteRule | null = null;
  let holding: WriteRule | null = null;
  const refusedOperations: string[] = [];
  const held: (() => void)[] = [];
  const servers: ReturnType<typeof createServer>[] = [];

  const refuse = (write: ItemWrite, res: ServerResponse) => {
    refusedOperations.push(write.operation);
    res.writeHead(500, { 'content-type': 'application/x-amz-json-1.0' });
    res.end(JSON.stringify({ __type: 'com.amazonaws.dynamodb.v20120810#InternalServerError', message: 'Internal server error' }));
  };
  const forward = (target: URL, req: IncomingMessage, body: Buffer, res: ServerResponse) => {
    const upstream = request({ hostname: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    upstream.on('error', () => res.destroy());
    upstream.end(body);
  };
  const writeOf = (req: IncomingMessage, body: Buffer): ItemWrite | null => {
    const operation = String(req.headers['x-amz-target'] ?? '').split('.').pop() ?? '';
    if (!WRITES.has(operation)) return null;
    const json = JSON.parse(body.toString('utf8'));
    return { operation, pk: String((json.Key ?? json.Item)?.pk?.S ?? ''), request: json };
  };

  return {
    get refused() {
      return refusedOperations.length;
    },
    refusedOperations,
    get held() {
      return held.length;
    },
    refuse(rule) {
      refusing = rule;
    },
    hold(rule) {
      holding = rule;
    },
    release() {
      refusing = null;
      holding = null;
      for (const go of held.splice(0)) go();
    },
    async via(endpoint) {
      const target = new URL(endpoint);
      const server = createServer((req, res) => {
        const chunks: Buffer[] = [];
        req.on('data', (chunk: Buffer) => chunks.push(chunk));
        req.on('end', () => {
          const body = Buffer.concat(chunks);
          const write = writeOf(req, body);
          if (write && refusing?.(write)) return refuse(write, res);
          if (write && holding?.(write)) return void held.push(() => forward(target, req, body, res));
          forward(target, req, body, res);
        });
      });
      servers.push(server);
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    },
    async close() {
      this.release();
      for (const server of servers) {
        server.closeAllConnections();
        await new Promise((resolve) => server.close(resolve));
      }
    },
  };
}
