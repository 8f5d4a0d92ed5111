import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { createTable } from './create-table';

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;

/**
 * dynalite 4.0 reads its tables through abstract-level 3 iterators wrapped in
 * streams, and when a stream ends it closes the iterator with `return()`, which
 * these iterators do not have (they have `close()`). So every query and scan
 * left an iterator open, registered with the database with its buffers (and,
 * with LevelDB, a snapshot): about 13 MB a minute during a show, mostly from
 * the media server's revocation-feed polls (bench/media-soak.ts). Giving the
 * iterators `return` lets dynalite's own cleanup close them.
 */
function closeDynaliteIterators(): void {
  const fromDynalite = createRequire(require.resolve('dynalite'));
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
  close(): Promise<void>;
}

/**
 * dynalite: a DynamoDB-compatible HTTP server in this process. `dataDir`
 * persists tables in LevelDB; `undefined` keeps them in memory.
 */
export async function startEmbeddedDynamo(opts: { dataDir?: string; tableName: string }): Promise<EmbeddedDynamo> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const server = dynalite({ path: opts.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  const endpoint = `http://127.0.0.1:${port}`;
  await createTable(endpoint, opts.tableName);
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
