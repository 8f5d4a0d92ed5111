/**
 * `npm run admin -- <command>`: what the local system's owner may need without the console.
 *
 *   npm run admin -- unlock <login name>     lifts a sign-in lock (`unlock owner` for the bootstrap owner)
 *
 * Works on `DATA_DIR` (default `.data`) whether `npm start` runs on it (through its embedded
 * DynamoDB, local/running-system.ts) or not (opening the folder itself). In AWS the same is
 * infra/scripts/unlock-account.ts on the staff table.
 */
import { dynamoDocumentClient } from '../functions/adapters/aws-clients';
import { dynamoAccountStore } from '../functions/adapters/dynamo-stores';
import { unlockSignIn } from '../functions/domain/staff';
import { startEmbeddedDynamo } from './embedded-dynamodb';
import { LOCAL_TABLES, localDataDir, localDynamoDir } from './local-config';
import { runningSystemOn } from './running-system';

const USAGE = 'usage: npm run admin -- unlock <login name>';

async function unlock(name: string): Promise<string> {
  const dataDir = localDataDir(process.env);
  if (!dataDir) throw new Error('DATA_DIR=memory keeps nothing on disk: restarting npm start lifts every lock');
  const running = runningSystemOn(dataDir)?.dynamoEndpoint;
  const dynamo = running ? null : await startEmbeddedDynamo({ dataDir: localDynamoDir(dataDir), ...LOCAL_TABLES });
  const client = dynamoDocumentClient({
    region: 'us-east-1',
    credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    endpoints: { dynamodb: running ?? dynamo!.endpoint },
  });
  try {
    const accounts = dynamoAccountStore(client, LOCAL_TABLES.staffTableName);
    const lockedUntil = await unlockSignIn({ stores: { accounts }, now: () => new Date() }, name);
    return lockedUntil ? `${name}: unlocked (it was locked until ${lockedUntil})` : `${name}: was not locked; any failed sign-ins are forgotten`;
  } finally {
    client.destroy();
    await dynamo?.close();
  }
}

async function main(argv: string[]): Promise<void> {
  const [command, name, ...rest] = argv;
  if (command !== 'unlock' || !name || rest.length > 0) throw new Error(USAGE);
  process.stdout.write(`${await unlock(name)}\n`);
}

main(process.argv.slice(2)).catch((error: unknown) => {
  process.stderr.write(`admin: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
