import { GetCommand, PutCommand, QueryCommand, type DynamoDBDocumentClient, type UpdateCommandInput } from '@aws-sdk/lib-dynamodb';
import type { AccountChanges, AccountPolicy, AccountRecord, AccountStore } from '../domain/account-store';
import { AlreadyExists, NotFound } from '../domain/errors';
import { conditionalWriter, type ConditionalWriter } from './dynamo-conditional';

/** Staff accounts are few: one partition holds them all, so listing is one query and no index is needed. */
const PARTITION = 'ACCOUNTS';
const accountKey = (username: string) => ({ pk: PARTITION, sk: `ACCOUNT#${username}` });
const POLICY_KEY = { pk: PARTITION, sk: 'POLICY' };

type Item = Record<string, unknown>;
type AccountUpdate = Pick<UpdateCommandInput, 'UpdateExpression' | 'ConditionExpression' | 'ExpressionAttributeNames' | 'ExpressionAttributeValues'>;

function toAccount(item: Item): AccountRecord {
  const { pk, sk, recoveryCodes, ...rest } = item;
  return { ...(rest as unknown as Omit<AccountRecord, 'recoveryCodeHashes'>), recoveryCodeHashes: Object.keys((recoveryCodes as Item) ?? {}) };
}

/** Recovery code hashes are map keys, so using one is a single conditional REMOVE. */
const recoveryMap = (hashes: string[]) => Object.fromEntries(hashes.map((hash) => [hash, true]));

/** The accounts part of the Store on DynamoDB (DynamoStore extends it). */
export class DynamoAccountStore implements AccountStore {
  /** Every conditional write of the table (DynamoStore's too). */
  protected readonly writeIf: ConditionalWriter;

  constructor(
    private readonly db: DynamoDBDocumentClient,
    private readonly tableName: string,
  ) {
    this.writeIf = conditionalWriter(db, tableName);
  }

  async createAccount(account: AccountRecord): Promise<void> {
    const { recoveryCodeHashes, ...rest } = account;
    await this.writeIf(
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
    return this.writeIf(
      { update: { ...update, Key: accountKey(username), ConditionExpression: 'attribute_exists(pk)', ReturnValues: 'ALL_NEW' } },
      () => new NotFound(`account ${username}`),
    );
  }

  /** Spends something usable once (a TOTP step, a recovery code): true when this call spent it. */
  private async useOnce(username: string, update: AccountUpdate): Promise<boolean> {
    return (await this.writeIf({ update: { ...update, Key: accountKey(username) } })) !== null;
  }

  async getAccountPolicy(): Promise<AccountPolicy> {
    const { Item } = await this.db.send(new GetCommand({ TableName: this.tableName, Key: POLICY_KEY, ConsistentRead: true }));
    return { requireTwoFactor: Item?.requireTwoFactor === true };
  }

  async setAccountPolicy(policy: AccountPolicy, now: string): Promise<void> {
    await this.db.send(new PutCommand({ TableName: this.tableName, Item: { ...POLICY_KEY, ...policy, updatedAt: now } }));
  }
}
