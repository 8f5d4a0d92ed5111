import { createRequire } from 'node:module';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdirSync } from 'node:fs';
import { staffTableSchema, tableSchema } from '../functions/adapters/table-schema';
import { createTable } from './create-table';

const require = createRequire(import.meta.url);
const dynalite = require('dynalite') as (options: Record<string, unknown>) => Server;

export interface EmbeddedDynamo {
  endpoint: string;
  close(): Promise<void>;
}

/**
 * dynalite: a DynamoDB-compatible HTTP server in this process, with the table (and, given its
 * name, the staff table) created. `dataDir` persists tables in LevelDB; `undefined` keeps them in memory.
 */
export async function startEmbeddedDynamo(opts: { dataDir?: string; tableName: string; staffTableName?: string }): Promise<EmbeddedDynamo> {
  if (opts.dataDir) mkdirSync(opts.dataDir, { recursive: true });
  const server = dynalite({ path: opts.dataDir, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections?.();
        server.close(() => resolve());
      }),
  };
}
