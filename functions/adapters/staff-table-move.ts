import type { DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import { isSealedTotpSecret, sealTotpSecret } from '../domain/staff';
import { dynamoTable, type DynamoTable, type Item } from './dynamo-table';

/** Where versions before the staff table kept staff accounts and the account policy: one partition of the main table. */
const OLD_PARTITION = 'ACCOUNTS';

export interface StaffMove {
  /** The main table, which held them. */
  from: string;
  /** The staff table (table-schema.ts, `staffTableSchema`). */
  to: string;
  /** The admin secret's `totpEncryptionKey`: TOTP secrets stored in clear are sealed on the way. */
  totpEncryptionKey: string;
}

export interface StaffMoveResult {
  copied: string[];
  deleted: number;
}

const nameOf = (item: Item) => String(item.sk);

function oldItems(table: DynamoTable): Promise<Item[]> {
  return table.queryAll({ KeyConditionExpression: 'pk = :pk', ExpressionAttributeValues: { ':pk': OLD_PARTITION }, ConsistentRead: true });
}

/** An old account item as the staff table keeps it: TOTP secrets sealed (domain/staff/totp-secrets.ts), a new session generation. */
function movedAccount(item: Item, key: string): Item {
  const username = String(item.username);
  const seal = (secret: unknown) => (typeof secret === 'string' && !isSealedTotpSecret(secret) ? sealTotpSecret(secret, key, username) : secret);
  return { ...item, totpSecret: seal(item.totpSecret), totpPendingSecret: seal(item.totpPendingSecret), sessionGeneration: Number(item.sessionGeneration ?? 0) + 1 };
}

/**
 * Copies every item of the old `ACCOUNTS` partition that the staff table lacks (same keys:
 * the accounts adapter keeps its key scheme), TOTP secrets sealed. An account's session
 * generation is raised on the way: signed-out sessions stay behind in the main table, so every
 * admin session from before the move ends and each member of staff signs in once more. Never
 * overwrites: an item the staff table holds is newer than the old one.
 */
async function copyMissing(to: DynamoTable, items: Item[], totpEncryptionKey: string): Promise<string[]> {
  const copied: string[] = [];
  for (const item of items) {
    const moved = String(item.sk).startsWith('ACCOUNT#') ? movedAccount(item, totpEncryptionKey) : item;
    const outcome = await to.writeIf({ put: { Item: moved, ConditionExpression: 'attribute_not_exists(pk)' } });
    if (outcome.applied) copied.push(nameOf(item));
  }
  return copied;
}

/**
 * Step `copy`, run before the admin function reads the staff table: the staff table gets every
 * staff item the main table holds and it lacks. The old items stay, so a deploy that rolls back
 * finds them where the old function reads them.
 */
export async function copyStaffItems(client: DynamoDBDocumentClient, move: StaffMove): Promise<StaffMoveResult> {
  const from = dynamoTable(client, move.from);
  return { copied: await copyMissing(dynamoTable(client, move.to), await oldItems(from), move.totpEncryptionKey), deleted: 0 };
}

/**
 * Step `retire`, run once nothing reads the old items any more: copies what is still missing (an
 * account the old function made meanwhile), then deletes the old items from the main table,
 * where every other function's role could reach them. Idempotent: a re-run finds nothing to do.
 */
export async function retireStaffItems(client: DynamoDBDocumentClient, move: StaffMove): Promise<StaffMoveResult> {
  const from = dynamoTable(client, move.from);
  const items = await oldItems(from);
  const copied = await copyMissing(dynamoTable(client, move.to), items, move.totpEncryptionKey);
  await from.deleteAll(items.map((item) => ({ pk: item.pk, sk: item.sk })));
  return { copied, deleted: items.length };
}
