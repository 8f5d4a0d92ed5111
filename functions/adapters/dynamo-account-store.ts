import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { GetCommand, PutCommand, QueryCommand, UpdateCommand, type DynamoDBDocumentClient } from '@aws-sdk/lib-dynamodb';
import type { AccountChanges, AccountPolicy, AccountRecord, AccountStore } from '../domain/account-store';
import { AlreadyExists, NotFound } from '../domain/errors';

/** Staff accounts are few: one partition holds them all, so listing is one query and no index is needed. */
const PARTITION = 'ACCOUNTS';
const accountKey = (username: string) => ({ pk: PARTITION, sk: `ACCOUNT#${username}` });
const POLICY_KEY = { pk: PARTITION, sk: 'POLICY' };

type Item = Record<string, unknown>;

function toAccount(item: Item): AccountRecord {
  const { pk, sk, recoveryCodes, ...rest } = item;
  return { ...(rest as unknown as Omit<AccountRecord, 'recoveryCodeHashes'>), recoveryCodeHashes: Object.keys((recoveryCodes as Item) ?? {}) };
}

/** Recovery code hashes are map keys, so using one is a single conditional REMOVE. */
const recoveryMap = (hashes: string[]) => Object.fromEntries(hashes.map((hash) => [hash, true]));

function isConditionFailure(error: unknown): boolean {
  return error instanceof ConditionalCheckFailedException || (error instanceof Error && error.name === 'ConditionalCheckFailedException');
}

async function unlessConditionFails(write: () => Promise<unknown>): Promise<boolean> {
  try {
    await write();
    return true;
  } catch (error) {
    if (isConditionFailure(error)) return false;
    throw error;
  }
}

/** The accounts part of the Store on DynamoDB (DynamoStore extends it). */
export class DynamoAccountStore implements AccountStore {
  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {}

  async createAccount(account: AccountRecord): Promise<void> {
    const { recoveryCodeHashes, ...rest } = account;
    const created = await unlessConditionFails(() =>
      this.db.send(
        new PutCommand({
          TableName: this.tableName,
          Item: { ...accountKey(account.username), ...rest, recoveryCodes: recoveryMap(recoveryCodeHashes) },
          ConditionExpression: 'attribute_not_exists(pk)',
        }),
      ),
    );
    if (!created) throw new AlreadyExists(`account ${account.username} exists`);
  }

  async getAccount(username: string): Promise<AccountRecord | null> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: accountKey(username), ConsistentRead: true }));
    return Item ? toAccount(Item) : null;
  }

  async listAccounts(): Promise<AccountRecord[]> {
    const items: Item[] = [];
    let ExclusiveStartKey: Item | undefined;
    do {
      const page = await this.db.send(
        new QueryCommand({
          TableName: this.tableName,
          KeyConditionExpression: 'pk = :pk AND begins_with(sk, :prefix)',
          ExpressionAttributeValues: { ':pk': PARTITION, ':prefix': 'ACCOUNT#' },
          ConsistentRead: true,
          ExclusiveStartKey,
        }),
      );
      items.push(...((page.Items ?? []) as Item[]));
      ExclusiveStartKey = page.LastEvaluatedKey as Item | undefined;
    } while (ExclusiveStartKey);
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
    let Attributes: Item | undefined;
    const updated = await unlessConditionFails(async () => {
      ({ Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression: `SET ${sets.join(', ')}${options.endSessions ? ' ADD sessionGeneration :one' : ''}`,
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeNames: names,
          ExpressionAttributeValues: values,
          ReturnValues: 'ALL_NEW',
        }),
      ));
    });
    if (!updated) throw new NotFound(`account ${username}`);
    return toAccount(Attributes!);
  }

  async countFailedAttempt(username: string, now: string): Promise<number> {
    let Attributes: Item | undefined;
    const counted = await unlessConditionFails(async () => {
      ({ Attributes } = await this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression: 'ADD failedAttempts :one SET updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk)',
          ExpressionAttributeValues: { ':one': 1, ':now': now },
          ReturnValues: 'ALL_NEW',
        }),
      ));
    });
    if (!counted) throw new NotFound(`account ${username}`);
    return Number(Attributes!.failedAttempts);
  }

  useTotpStep(username: string, step: number, now: string): Promise<boolean> {
    return unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression: 'SET totpLastStep = :step, updatedAt = :now',
          ConditionExpression: 'attribute_exists(pk) AND totpLastStep < :step',
          ExpressionAttributeValues: { ':step': step, ':now': now },
        }),
      ),
    );
  }

  useRecoveryCode(username: string, hash: string, now: string): Promise<boolean> {
    return unlessConditionFails(() =>
      this.db.send(
        new UpdateCommand({
          TableName: this.tableName,
          Key: accountKey(username),
          UpdateExpression: 'REMOVE recoveryCodes.#hash SET updatedAt = :now',
          ConditionExpression: 'attribute_exists(recoveryCodes.#hash)',
          ExpressionAttributeNames: { '#hash': hash },
          ExpressionAttributeValues: { ':now': now },
        }),
      ),
    );
  }

  async getAccountPolicy(): Promise<AccountPolicy> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: POLICY_KEY, ConsistentRead: true }));
    return { requireTwoFactor: Item?.requireTwoFactor === true };
  }

  async setAccountPolicy(policy: AccountPolicy, now: string): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: { ...POLICY_KEY, ...policy, updatedAt: now } }));
  }
}
