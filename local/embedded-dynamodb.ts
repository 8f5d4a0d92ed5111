import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { createTable } from './create-table';
import { dynaliteWithStream, type TableStream } from './table-stream';

export interface EmbeddedDynamo {
  endpoint: string;
  /** The table's change stream (NEW_AND_OLD_IMAGES), as DynamoDB Streams delivers it in AWS. */
  stream: TableStream;
  close(): Promise<void>;
}

/**
 * dynalite: a DynamoDB-compatible HTTP server in this process, with the table's stream
 * (table-stream.ts). `dataDir` persists tables in LevelDB; `undefined` keeps them in memory.
 */
export async function startEmbeddedDynamo(opts: { dataDir?: string; tableName: string }): Promise<EmbeddedDynamo> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const { server, stream } = dynaliteWithStream({ path: opts.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }, opts.tableName);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  await createTable(endpoint, opts.tableName);
  return {
    endpoint,
    stream,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
