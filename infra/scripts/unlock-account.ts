/**
 * Lifts the sign-in lock of a staff account of a deployed stack, without the console (the owner
 * locked out by repeated failed sign-ins, from anywhere): forgets the login name's failed sign-ins,
 * its own and those from every address, in the staff table.
 *
 *   npx tsx infra/scripts/unlock-account.ts <StaffTableName> <login name>     (e.g. owner)
 *
 * Uses the shell's AWS credentials and region; they need dynamodb:GetItem, Query and
 * BatchWriteItem on the staff table (stack output StaffTableName). Locally: `npm run admin -- unlock <name>`.
 */
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { dynamoDocumentClient } from '../../functions/adapters/aws-clients';
import { dynamoAccountStore } from '../../functions/adapters/dynamo-stores';
import { unlockSignIn } from '../../functions/domain/staff';

async function main(argv: string[]): Promise<void> {
  const [table, name] = argv;
  if (!table || !name) throw new Error('usage: npx tsx infra/scripts/unlock-account.ts <StaffTableName (stack output)> <login name>');
  const client = dynamoDocumentClient();
  try {
    const lockedUntil = await unlockSignIn({ stores: { accounts: dynamoAccountStore(client, table) }, now: () => new Date() }, name);
    process.stdout.write(lockedUntil ? `${name}: unlocked (it was locked until ${lockedUntil})\n` : `${name}: was not locked; any failed sign-ins are forgotten\n`);
  } finally {
    client.destroy();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    process.stderr.write(`unlock-account: ${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  });
}
