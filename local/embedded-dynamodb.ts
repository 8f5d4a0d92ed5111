import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { staffTableSchema, tableSchema } from '../functions/adapters/table-schema';
import { createTable } from './create-table';
import { dynaliteWithStream, type TableStream } from './table-stream';

/**
 * dynalite 4.0 reads its tables through abstract-level 3 iterators wrapped in
 * streams, and when a stream ends it closes the iterator with `return()`, which
 * these iterators do not have (they have `close()`). So every query and scan
 * left an iterator open, registered with the database with its buffers (and,
 * with LevelDB, a snapshot): about 13 MB a minute during a show, when the media
 * server still polled the revocation feed (bench/media-soak.ts). Giving the
 * iterators `return` lets dynalite's own cleanup close them.
 */
function closeDynaliteIterators(): void {
  const fromDynalite = createRequire(createRequire(import.meta.url).resolve('dynalite'));
  const { AbstractIterator } = fromDynalite('abstract-level') as { AbstractIterator: { prototype: object } };
  // The common base of the entry, key and value iterators.
  const iterator = Object.getPrototypeOf(AbstractIterator.prototype) as { close(): Promise<void>; return?: () => Promise<void> };
  iterator.return ??= function (this: { close(): Promise<void> }) {
    return this.close();
  };
}
closeDynaliteIterators();

export interface EmbeddedDynamo {
  endpoint: string;
  /** The table's change stream (NEW_AND_OLD_IMAGES), as DynamoDB Streams delivers it in AWS. */
  stream: TableStream;
  close(): Promise<void>;
}

/**
 * dynalite: a DynamoDB-compatible HTTP server in this process, with the table's stream
 * (table-stream.ts) and the table (and, given its name, the staff table) created. `dataDir`
 * persists tables in LevelDB; `undefined` keeps them in memory.
 */
export async function startEmbeddedDynamo(opts: { dataDir?: string; tableName: string; staffTableName?: string }): Promise<EmbeddedDynamo> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const { server, stream } = dynaliteWithStream({ path: opts.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 }, opts.tableName);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  await createTable(endpoint, opts.tableName, tableSchema);
  if (opts.staffTableName) await createTable(endpoint, opts.staffTableName, staffTableSchema);
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
