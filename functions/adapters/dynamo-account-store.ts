import { PutCommand, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AccountChanges, AccountPolicy, AccountRecord, AccountStore } from '../domain/account-store';
import { AlreadyExists, NotFound } from '../domain/errors';
import { epochSeconds } from './dynamo-keys';
import type { DynamoTable, Item } from './dynamo-table';
import { tableSchema } from './table-schema';

/** Staff accounts are few: one partition holds them all, so listing is one query and no index is needed. */
const PARTITION = 'ACCOUNTS';
const accountKey = (username: string) => ({ pk: PARTITION, sk: `ACCOUNT#${username}` });
const POLICY_KEY = { pk: PARTITION, sk: 'POLICY' };
const adminSessionKey = (id: string) => ({ pk: `ADMINSESSION#${id}`, sk: 'ADMINSESSION' });

type AccountUpdate = Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;

function toAccount(item: Item): AccountRecord {
  const { pk, sk, recoveryCodes, ...rest } = item;
  return { ...(rest as unknown as Omit<AccountRecord, 'recoveryCodeHashes'>), recoveryCodeHashes: Object.keys((recoveryCodes as Item) ?? {}) };
}

/** Recovery code hashes are map keys, so using one is a single conditional REMOVE. */
const recoveryMap = (hashes: string[]) => Object.fromEntries(hashes.map((hash) => [hash, true]));

/** The staff accounts port on DynamoDB: one partition of accounts and the policy, and an item per signed-out admin session. */
export class DynamoAccountStore implements AccountStore {
  constructor(private readonly table: DynamoTable) {}

  async createAccount(account: AccountRecord): Promise<void> {
    const { recoveryCodeHashes, ...rest } = account;
    await this.table.writeIf(
      {
        put: {
          Item: { ...accountKey(account.username), ...rest, recoveryCodes: recoveryMap(recoveryCodeHashes) },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
      () => new AlreadyExists(`account ${account.username} exists`),
    );
  }

  async getAccount(username: string): Promise<AccountRecord | null> {
    const item = await this.table.get(accountKey(username));
    return item ? toAccount(item) : null;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const items = await this.table.queryAll({
      KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
      ExpressionAttributeValues: { ':pk': PARTITION, ':prefix': 'ACCOUNT#' },
      ConsistentRead: true,
    });
    return items.map(toAccount);
  }

  async updateAccount(username: string, changes: AccountChanges, options: { now: string; endSessions?: boolean }): Promise<AccountRecord> {
    const names: Record<string, string> = { '#updatedAt': 'updatedAt' };
    const values: Record<string, unknown> = { ':now': options.now };
    const sets = ['#updatedAt = :now'];
    for (const [field, value] of Object.entries(changes)) {
      if (value === undefined) continue;
      const attribute = field === 'recoveryCodeHashes' ? 'recoveryCodes' : field;
      names[`#${attribute}`] = attribute;
      values[`:${attribute}`] = field === 'recoveryCodeHashes' ? recoveryMap(value as string[]) : value;
      sets.push(`#${attribute} = :${attribute}`);
    }
    if (options.endSessions) values[':one'] = 1;
    const item = await this.updateExisting(username, {
      UpdateExpression: `SET ${sets.join(', ')}${options.endSessions ? ' ADD sessionGeneration :one' : ''}`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    });
    return toAccount(item);
  }

  async countFailedAttempt(username: string, now: string): Promise<number> {
    const item = await this.updateExisting(username, {
      UpdateExpression: 'ADD failedAttempts :one SET updatedAt = :now',
      ExpressionAttributeValues: { ':one': 1, ':now': now },
    });
    return Number(item.failedAttempts);
  }

  useTotpStep(username: string, step: number, now: string): Promise<boolean> {
    return this.useOnce(username, {
      UpdateExpression: 'SET totpLastStep = :step, updatedAt = :now',
      ConditionExpression: 'attribute_exists(pk) AND totpLastStep < :step',
      ExpressionAttributeValues: { ':step': step, ':now': now },
    });
  }

  useRecoveryCode(username: string, hash: string, now: string): Promise<boolean> {
    return this.useOnce(username, {
      UpdateExpression: 'REMOVE recoveryCodes.#hash SET updatedAt = :now',
      ConditionExpression: 'attribute_exists(recoveryCodes.#hash)',
      ExpressionAttributeNames: { '#hash': hash },
      ExpressionAttributeValues: { ':now': now },
    });
  }

  /** Updates the account if it exists (NotFound otherwise); the item after the update. */
  private updateExisting(username: string, update: AccountUpdate): Promise<Item> {
    return this.table.writeIf(
      { update: { ...update, Key: accountKey(username), ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_NEW' } },
      () => new NotFound('account', username),
    );
  }

  /** Spends something usable once (a TOTP step, a recovery code): true when this call spent it. */
  private async useOnce(username: string, update: AccountUpdate): Promise<boolean> {
    return (await this.table.writeIf({ update: { ...update, Key: accountKey(username) } })).applied;
  }

  async getAccountPolicy(): Promise<AccountPolicy> {
    const item = await this.table.get(POLICY_KEY);
    return { requireTwoFactor: item?.requireTwoFactor === true };
  }

  async setAccountPolicy(policy: AccountPolicy, now: string): Promise<void> {
    await this.put({ ...POLICY_KEY, ...policy, updatedAt: now });
  }

  async revokeAdminSession(id: string, expiresAt: string): Promise<void> {
    await this.put({ ...adminSessionKey(id), [tableSchema.ttlAttribute]: epochSeconds(expiresAt) + 60 });
  }

  async isAdminSessionRevoked(id: string): Promise<boolean> {
    return (await this.table.get(adminSessionKey(id))) !== null;
  }

  private async put(item: Item): Promise<void> {
    await this.table.client.send(new PutCommand({ TableName: this.table.name, Item: item }));
  }
}
