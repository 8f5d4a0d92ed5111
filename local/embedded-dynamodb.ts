import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { createTable } from './create-table';

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;

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
